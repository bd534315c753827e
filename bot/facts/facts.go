// Package facts is /memory and /forget: the user's long-term facts listed,
// numbered, and forgotten by number or all at once. bot routes the
// commands (in private chats only) and sends what this package answers.
package facts

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/memory"
)

// Store is what /memory and /forget need.
type Store interface {
	Facts(ctx context.Context, userID int64) ([]memory.Fact, error)
	ForgetFactNumber(ctx context.Context, userID int64, n int) (*memory.Fact, error)
	ForgetAllFacts(ctx context.Context, userID int64) (int64, error)
}

// List answers /memory: the user's facts, numbered for /forget.
func List(ctx context.Context, store Store, userID int64, lang string) (string, error) {
	facts, err := store.Facts(ctx, userID)
	if err != nil {
		return "", err
	}
	if len(facts) == 0 {
		return texts.For(lang).MemoryEmpty, nil
	}
	lines := make([]string, len(facts))
	for i, f := range facts {
		lines[i] = fmt.Sprintf("%d. %s", i+1, f.Content)
	}
	return texts.For(lang).MemoryList(strings.Join(lines, "\n")), nil
}

// ForgetAll answers "/forget all": every one of the user's facts deleted.
func ForgetAll(ctx context.Context, store Store, userID int64, lang string) (string, error) {
	t := texts.For(lang)
	n, err := store.ForgetAllFacts(ctx, userID)
	if err != nil {
		return "", err
	}
	if n == 0 {
		return t.ForgetNone, nil
	}
	return t.ForgotAll(n), nil
}

// Forget answers "/forget N": the fact of the single number in numbers
// deleted (none, several, or arguments that were no numbers: how to use
// the command).
func Forget(ctx context.Context, store Store, userID int64, lang string, numbers []int) (string, error) {
	t := texts.For(lang)
	if len(numbers) != 1 {
		return t.ForgetUsage, nil
	}
	n := numbers[0]
	f, err := store.ForgetFactNumber(ctx, userID, n)
	if errors.Is(err, memory.ErrNotFound) {
		return t.ForgetNoSuch(n), nil
	}
	if err != nil {
		return "", err
	}
	return t.Forgotten(f.Content), nil
}
