package bot

import (
	"context"
)

// replyWith replies with the text a command's logic came to, unless it
// failed.
func (h *Handler) replyWith(ctx context.Context, in *incoming) func(text string, err error) error {
	return func(text string, err error) error {
		if err != nil {
			return err
		}
		return h.reply(ctx, in, text)
	}
}
