package telegram

import (
	"context"
	"fmt"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// SetWebhook asks Telegram to post updates to url with the secret token.
func (c *Client) SetWebhook(ctx context.Context, url, secret string) error {
	_, err := c.request(ctx, func() (*tgbotapi.APIResponse, error) {
		return c.api.MakeRequest("setWebhook", tgbotapi.Params{"url": url, "secret_token": secret})
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
