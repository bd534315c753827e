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

func init() {
	addTexts(factTexts)
}

const (
	txtMemoryList   = "memory_list"
	txtMemoryEmpty  = "memory_empty"
	txtForgetUsage  = "forget_usage"
	txtForgotten    = "forgotten"
	txtForgotAll    = "forgot_all"
	txtForgetNone   = "forget_none"
	txtForgetNoSuch = "forget_no_such"
)

var factTexts = map[string]map[string]string{
	"en": {
		helpKey("memory"): "what I remember about you",
		helpKey("forget"): "delete what I remember: /forget N, or /forget all",
		txtMemoryList:     "What I remember about you, newest first:\n%s\n\n/forget N deletes one, /forget all deletes them all.",
		txtMemoryEmpty:    "I don't remember anything about you yet. Tell me about yourself and ask me to remember it.",
		txtForgetUsage:    "Which one? /memory lists what I remember with numbers: /forget 2 deletes the second, /forget all deletes everything.",
		txtForgotten:      "Forgotten: %s",
		txtForgotAll:      "Forgotten: all %d facts about you.",
		txtForgetNone:     "There was nothing to forget.",
		txtForgetNoSuch:   "There is no fact number %d; /memory lists them.",
	},
	"ru": {
		helpKey("memory"): "что я о вас помню",
		helpKey("forget"): "удалить то, что я помню: /forget N или /forget all",
		txtMemoryList:     "Что я о вас помню, сначала новое:\n%s\n\n/forget N удаляет одно, /forget all — всё.",
		txtMemoryEmpty:    "Я пока ничего о вас не помню. Расскажите о себе и попросите запомнить.",
		txtForgetUsage:    "Что именно? /memory показывает, что я помню, с номерами: /forget 2 удаляет второе, /forget all — всё.",
		txtForgotten:      "Забыл: %s",
		txtForgotAll:      "Забыл всё, что помнил о вас (%d).",
		txtForgetNone:     "Забывать было нечего.",
		txtForgetNoSuch:   "Под номером %d ничего нет; /memory покажет список.",
	},
}

// cmdMemory lists the user's long-term facts, numbered for /forget.
func cmdMemory(ctx context.Context, h *Handler, in *incoming) error {
	facts, err := h.Memory.Facts(ctx, in.user.TelegramUserID)
	if err != nil {
		return storageError(err)
	}
	if len(facts) == 0 {
		return h.reply(ctx, in, T(in.lang(), txtMemoryEmpty))
	}
	lines := make([]string, len(facts))
	for i, f := range facts {
		lines[i] = fmt.Sprintf("%d. %s", i+1, f.Content)
	}
	return h.reply(ctx, in, fmt.Sprintf(T(in.lang(), txtMemoryList), strings.Join(lines, "\n")))
}

// cmdForget deletes one fact by its /memory number, or all of them.
func cmdForget(ctx context.Context, h *Handler, in *incoming) error {
	lang, user := in.lang(), in.user.TelegramUserID
	numbers, all, ok := numberArgs(in)
	if all {
		n, err := h.Memory.ForgetAllFacts(ctx, user)
		if err != nil {
			return storageError(err)
		}
		if n == 0 {
			return h.reply(ctx, in, T(lang, txtForgetNone))
		}
		return h.reply(ctx, in, fmt.Sprintf(T(lang, txtForgotAll), n))
	}
	if !ok || len(numbers) != 1 {
		return h.reply(ctx, in, T(lang, txtForgetUsage))
	}
	n := numbers[0]
	f, err := h.Memory.ForgetFactNumber(ctx, user, n)
	if errors.Is(err, memory.ErrNotFound) {
		return h.reply(ctx, in, fmt.Sprintf(T(lang, txtForgetNoSuch), n))
	}
	if err != nil {
		return storageError(err)
	}
	return h.reply(ctx, in, fmt.Sprintf(T(lang, txtForgotten), f.Content))
}
