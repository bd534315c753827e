package bot

import (
	"context"
	"strings"

	"github.com/membot/membot/memory"
)

// callbackFunc handles the press of an inline button whose callback data
// was "prefix:arg" (in.query is the press; in.msg the message with the
// button); it must answer the callback query. Like a turn, it may return
// the delivery of an answer it sent.
type callbackFunc func(ctx context.Context, h *Handler, in *incoming, arg string) (*memory.Delivery, error)

// callbacks maps a callback-data prefix to its handler. A feature's file
// registers its buttons in an init function.
var callbacks = map[string]callbackFunc{}

func registerCallback(prefix string, fn callbackFunc) { callbacks[prefix] = fn }

// callback routes a button press; unknown (say, outdated) buttons are
// answered so the user's client stops its spinner.
func (h *Handler) callback(ctx context.Context, in *incoming) (*memory.Delivery, error) {
	if ok, err := h.admitButton(ctx, in.query); !ok {
		return nil, err
	}
	prefix, arg, _ := strings.Cut(in.query.Data, ":")
	if fn, ok := callbacks[prefix]; ok {
		return fn(ctx, h, in, arg)
	}
	return nil, h.Client.AnswerCallback(ctx, in.query.ID, "")
}

// notify answers the button press with a short notice. It never fails the
// update: a press answered late (say, after a restart) is refused by
// Telegram, and the notice is only a courtesy.
func (h *Handler) notify(ctx context.Context, in *incoming, text string) {
	if err := h.Client.AnswerCallback(ctx, in.query.ID, text); err != nil {
		h.Log.Debug("answering a button press failed", "chat_id", in.msg.Chat.ID, "err", err)
	}
}
