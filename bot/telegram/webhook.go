package telegram

import (
	"context"
	"encoding/json"
	"fmt"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// AllowedUpdates are the kinds of update the bot asks Telegram for (with
// getUpdates and setWebhook; Telegram keeps the last list it was given).
// Leaving the list out would mean Telegram's default, which predates
// stopped_message_generation (Bot API 10.3): the Stop button of a draft.
var AllowedUpdates = []string{"message", "edited_message", "channel_post", "callback_query", "my_chat_member",
	StoppedGeneration}

// StoppedGeneration is the kind of update the Stop button of a draft
// sends (Bot API 10.3); the answer it stops reads it (bot/stop).
const StoppedGeneration = "stopped_message_generation"

// SetWebhook asks Telegram to post updates to url with the secret token.
func (c *Client) SetWebhook(ctx context.Context, url, secret string) error {
	_, err := c.request(ctx, func() (*tgbotapi.APIResponse, error) {
		allowed, _ := json.Marshal(AllowedUpdates)
		return c.api.MakeRequest("setWebhook", tgbotapi.Params{"url": url, "secret_token": secret, "allowed_updates": string(allowed)})
	})
	if err != nil {
		return fmt.Errorf("setWebhook: %w", err)
	}
	return nil
}

// DeleteWebhook switches Telegram back to getUpdates, keeping pending updates.
func (c *Client) DeleteWebhook(ctx context.Context) error {
	_, err := c.request(ctx, func() (*tgbotapi.APIResponse, error) {
		return c.api.MakeRequest("deleteWebhook", tgbotapi.Params{"drop_pending_updates": "false"})
	})
	if err != nil {
		return fmt.Errorf("deleteWebhook: %w", err)
	}
	return nil
}

// AnswerCallback acknowledges a button press, showing text (when not empty)
// as a small notice.
func (c *Client) AnswerCallback(ctx context.Context, queryID, text string) error {
	_, err := c.send(ctx, tgbotapi.NewCallback(queryID, text))
	return err
}

// WebhookInfo is what getWebhookInfo says: the webhook set ("" when the
// bot polls), and the last error Telegram met posting to it.
type WebhookInfo struct {
	URL                string `json:"url"`
	PendingUpdateCount int    `json:"pending_update_count"`
	LastErrorDate      int64  `json:"last_error_date"` // unix seconds; 0: none
	LastErrorMessage   string `json:"last_error_message"`
}

// WebhookInfo asks Telegram where it delivers the bot's updates.
func (c *Client) WebhookInfo(ctx context.Context) (WebhookInfo, error) {
	var info WebhookInfo
	raw, err := c.request(ctx, func() (*tgbotapi.APIResponse, error) { return c.api.MakeRequest("getWebhookInfo", nil) })
	if err != nil {
		return info, fmt.Errorf("getWebhookInfo: %w", err)
	}
	if err := json.Unmarshal(raw, &info); err != nil {
		return info, fmt.Errorf("getWebhookInfo: %w", err)
	}
	return info, nil
}
