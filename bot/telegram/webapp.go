package telegram

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// The library's types (Bot API 5.x) have no web_app buttons: these calls
// go through the raw request path with the fields of the Bot API docs.

// webAppInfo is the Bot API's WebAppInfo.
type webAppInfo struct {
	URL string `json:"url"`
}

// webAppButton is an InlineKeyboardButton that opens a Mini App.
type webAppButton struct {
	Text   string     `json:"text"`
	WebApp webAppInfo `json:"web_app"`
}

// SendWebAppParams is a message with one button that opens a Mini App.
type SendWebAppParams struct {
	Chat   Chat
	Text   string
	Button string
	URL    string // an https:// address
}

// SendWebApp sends text with a button opening the Mini App at URL
// (sendMessage with an inline web_app button; private chats only), and
// returns the message's id.
func (c *Client) SendWebApp(ctx context.Context, p SendWebAppParams) (int64, error) {
	markup, err := json.Marshal(map[string]any{"inline_keyboard": [][]webAppButton{{{Text: p.Button, WebApp: webAppInfo{URL: p.URL}}}}})
	if err != nil {
		return 0, err
	}
	params := tgbotapi.Params{"chat_id": strconv.FormatInt(p.Chat.ID, 10), "text": p.Text, "reply_markup": string(markup)}
	if p.Chat.Thread != 0 {
		params["message_thread_id"] = strconv.FormatInt(p.Chat.Thread, 10)
	}
	raw, err := c.raw(ctx, "sendMessage", params)
	if err != nil {
		return 0, fmt.Errorf("sendMessage with a Mini App button: %w", err)
	}
	var msg struct {
		MessageID int64 `json:"message_id"`
	}
	if err := json.Unmarshal(raw, &msg); err != nil {
		return 0, fmt.Errorf("sendMessage with a Mini App button: decode result: %w", err)
	}
	return msg.MessageID, nil
}

// SetMenuWebApp makes the menu button of every private chat with the bot
// open the Mini App at url under text (setChatMenuButton without a chat).
func (c *Client) SetMenuWebApp(ctx context.Context, text, url string) error {
	button, err := json.Marshal(map[string]any{"type": "web_app", "text": text, "web_app": webAppInfo{URL: url}})
	if err != nil {
		return err
	}
	if _, err := c.raw(ctx, "setChatMenuButton", tgbotapi.Params{"menu_button": string(button)}); err != nil {
		return fmt.Errorf("setChatMenuButton: %w", err)
	}
	return nil
}
