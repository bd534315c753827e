package bot

import (
	"context"

	"github.com/membot/membot/bot/facts"
)

// cmdMemory lists the user's long-term facts, numbered for /forget
// (bot/facts).
func cmdMemory(ctx context.Context, h *Handler, in *incoming) error {
	if !in.msg.Chat.IsPrivate() {
		return h.reply(ctx, in, tr(in.lang()).FactsPrivate)
	}
	if err := h.replyWith(ctx, in)(facts.List(ctx, h.Stores.Facts, in.user.TelegramUserID, in.lang())); err != nil {
		return err
	}
	return h.offerMemoryApp(ctx, in)
}

// cmdForget deletes one fact by its /memory number, or all of them
// (bot/facts).
func cmdForget(ctx context.Context, h *Handler, in *incoming) error {
	if !in.msg.Chat.IsPrivate() {
		return h.reply(ctx, in, tr(in.lang()).FactsPrivate)
	}
	numbers, all, _ := numberArgs(in) // numbers is nil when they are not numbers
	if all {
		return h.replyWith(ctx, in)(facts.ForgetAll(ctx, h.Stores.Facts, in.user.TelegramUserID, in.lang()))
	}
	return h.replyWith(ctx, in)(facts.Forget(ctx, h.Stores.Facts, in.user.TelegramUserID, in.lang(), numbers))
}

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
