package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/membot/membot/memory"
)

// FactStore is what /memory and /forget need.
type FactStore interface {
	Facts(ctx context.Context, userID int64) ([]memory.Fact, error)
	ForgetFactNumber(ctx context.Context, userID int64, n int) (*memory.Fact, error)
	ForgetAllFacts(ctx context.Context, userID int64) (int64, error)
}

// cmdMemory lists the user's long-term facts, numbered for /forget.
func cmdMemory(ctx context.Context, h *Handler, in *incoming) error {
	if !in.msg.Chat.IsPrivate() {
		return h.reply(ctx, in, tr(in.lang()).FactsPrivate)
	}
	facts, err := h.Memory.Facts(ctx, in.user.TelegramUserID)
	if err != nil {
		return err
	}
	if len(facts) == 0 {
		return h.reply(ctx, in, tr(in.lang()).MemoryEmpty)
	}
	lines := make([]string, len(facts))
	for i, f := range facts {
		lines[i] = fmt.Sprintf("%d. %s", i+1, f.Content)
	}
	return h.reply(ctx, in, tr(in.lang()).MemoryList(strings.Join(lines, "\n")))
}

// cmdForget deletes one fact by its /memory number, or all of them.
func cmdForget(ctx context.Context, h *Handler, in *incoming) error {
	if !in.msg.Chat.IsPrivate() {
		return h.reply(ctx, in, tr(in.lang()).FactsPrivate)
	}
	lang, user := in.lang(), in.user.TelegramUserID
	numbers, all, ok := numberArgs(in)
	if all {
		n, err := h.Memory.ForgetAllFacts(ctx, user)
		if err != nil {
			return err
		}
		if n == 0 {
			return h.reply(ctx, in, tr(lang).ForgetNone)
		}
		return h.reply(ctx, in, tr(lang).ForgotAll(n))
	}
	if !ok || len(numbers) != 1 {
		return h.reply(ctx, in, tr(lang).ForgetUsage)
	}
	n := numbers[0]
	f, err := h.Memory.ForgetFactNumber(ctx, user, n)
	if errors.Is(err, memory.ErrNotFound) {
		return h.reply(ctx, in, tr(lang).ForgetNoSuch(n))
	}
	if err != nil {
		return err
	}
	return h.reply(ctx, in, tr(lang).Forgotten(f.Content))
}
