package telegram

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// MaxMessageLength is Telegram's limit for one message, in UTF-16 code units.
const MaxMessageLength = 4096

// ModeHTML is the parse mode of Telegram HTML.
const ModeHTML = tgbotapi.ModeHTML

// SendMessageParams are sendMessage's parameters.
type SendMessageParams struct {
	Chat Chat // the chat, and its topic
	// ReplyTo is the message replied to (0: none); the message is sent
	// anyway should that one be gone.
	ReplyTo   int
	Text      string
	ParseMode string     // "" (plain text) or ModeHTML
	Buttons   [][]Button // rows of inline buttons under the message (nil: none)
}

// SendMessage sends one message, without link previews, and returns its id.
func (c *Client) SendMessage(ctx context.Context, p SendMessageParams) (int64, error) {
	if err := c.limit.wait(ctx, p.Chat.ID); err != nil {
		return 0, fmt.Errorf("sendMessage: %w", err)
	}
	msg := newMessage(p.Chat.ID, p.ReplyTo, p.Text)
	msg.ParseMode = p.ParseMode
	if p.Buttons != nil {
		msg.ReplyMarkup = inlineKeyboard(p.Buttons)
	}
	raw, err := c.sendIn(ctx, p.Chat.Thread, &msg)
	return sentMessageID("sendMessage", raw, err)
}

// newMessage is a text message without link previews, replying to replyTo
// when not 0 (and sent anyway should that message be gone).
func newMessage(chatID int64, replyTo int, text string) tgbotapi.MessageConfig {
	msg := tgbotapi.NewMessage(chatID, text)
	msg.DisableWebPagePreview = true
	if replyTo != 0 {
		msg.ReplyToMessageID = replyTo
		msg.AllowSendingWithoutReply = true
	}
	return msg
}

// Typing shows "typing…" in the chat (its topic) for about five seconds.
func (c *Client) Typing(ctx context.Context, chat Chat) error {
	if chat.Thread != 0 {
		_, err := c.api.MakeRequest("sendChatAction", tgbotapi.Params{"chat_id": strconv.FormatInt(chat.ID, 10),
			"message_thread_id": strconv.FormatInt(chat.Thread, 10), "action": tgbotapi.ChatTyping})
		return c.redact(err)
	}
	_, err := c.api.Request(tgbotapi.NewChatAction(chat.ID, tgbotapi.ChatTyping))
	return c.redact(err)
}

// GetUpdates long-polls for updates after offset and returns each one's JSON
// exactly as Telegram sent it, so that the inbox keeps fields this library
// does not know.
func (c *Client) GetUpdates(ctx context.Context, offset int64, timeoutSeconds int) ([]json.RawMessage, error) {
	resp, err := c.poll.Request(tgbotapi.UpdateConfig{Offset: int(offset), Limit: 100, Timeout: timeoutSeconds, AllowedUpdates: AllowedUpdates})
	if err != nil {
		return nil, fmt.Errorf("getUpdates: %w", c.redact(err))
	}
	c.reached()
	var updates []json.RawMessage
	if err := json.Unmarshal(resp.Result, &updates); err != nil {
		return nil, fmt.Errorf("getUpdates: decode result: %w", err)
	}
	return updates, nil
}
