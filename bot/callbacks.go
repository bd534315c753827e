package bot

import (
	"context"
	"strings"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// callbackFunc handles the press of an inline button whose callback data
// was "prefix:arg"; it must answer the callback query.
type callbackFunc func(ctx context.Context, h *Handler, q *tgbotapi.CallbackQuery, arg string) error

// callbacks maps a callback-data prefix to its handler. A feature's file
// registers its buttons in an init function.
var callbacks = map[string]callbackFunc{}

func registerCallback(prefix string, fn callbackFunc) { callbacks[prefix] = fn }

// callback routes a button press; unknown (say, outdated) buttons are
// answered so the user's client stops its spinner.
func (h *Handler) callback(ctx context.Context, q *tgbotapi.CallbackQuery) error {
	if ok, err := h.admitButton(ctx, q); !ok {
		return err
	}
	prefix, arg, _ := strings.Cut(q.Data, ":")
	if fn, ok := callbacks[prefix]; ok {
		return fn(ctx, h, q, arg)
	}
	return h.Client.AnswerCallback(ctx, q.ID, "")
}

// AnswerCallback acknowledges a button press, showing text (when not empty)
// as a small notice.
func (c *Client) AnswerCallback(ctx context.Context, queryID, text string) error {
	_, err := c.send(ctx, tgbotapi.NewCallback(queryID, text))
	return err
}
