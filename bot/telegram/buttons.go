package telegram

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// Button is an inline keyboard button that sends Data back when pressed.
type Button struct {
	Text string
	Data string // "prefix:arg", at most 64 bytes
}

// RemoveButtons takes the inline buttons off a message.
func (c *Client) RemoveButtons(ctx context.Context, chatID, messageID int64) error {
	_, err := c.send(ctx, tgbotapi.NewEditMessageReplyMarkup(chatID, int(messageID), inlineKeyboard(nil)))
	return err
}

func inlineKeyboard(rows [][]Button) tgbotapi.InlineKeyboardMarkup {
	kb := tgbotapi.InlineKeyboardMarkup{InlineKeyboard: [][]tgbotapi.InlineKeyboardButton{}}
	for _, row := range rows {
		var r []tgbotapi.InlineKeyboardButton
		for _, b := range row {
			r = append(r, tgbotapi.NewInlineKeyboardButtonData(b.Text, b.Data))
		}
		kb.InlineKeyboard = append(kb.InlineKeyboard, r)
	}
	return kb
}

// MemberStatus is a user's status in a chat (getChatMember): "creator",
// "administrator", "member", "restricted", "left" or "kicked".
func (c *Client) MemberStatus(ctx context.Context, chatID, userID int64) (string, error) {
	raw, err := c.request(ctx, func() (*tgbotapi.APIResponse, error) {
		return c.api.MakeRequest("getChatMember", tgbotapi.Params{
			"chat_id": strconv.FormatInt(chatID, 10), "user_id": strconv.FormatInt(userID, 10)})
	})
	if err != nil {
		return "", fmt.Errorf("getChatMember: %w", err)
	}
	var member struct {
		Status string `json:"status"`
	}
	if err := json.Unmarshal(raw, &member); err != nil {
		return "", fmt.Errorf("getChatMember: decode result: %w", err)
	}
	return member.Status, nil
}

// LeaveChat makes the bot leave a group (leaveChat).
func (c *Client) LeaveChat(ctx context.Context, chatID int64) error {
	if _, err := c.send(ctx, tgbotapi.LeaveChatConfig{ChatID: chatID}); err != nil {
		return fmt.Errorf("leaveChat: %w", err)
	}
	return nil
}
