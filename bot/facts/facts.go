// Package facts is /memory and /forget: the user's long-term facts listed,
// numbered, and forgotten by number or all at once. bot routes the
// commands (in private chats only) and sends what this package answers.
package facts

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/membot/membot/bot/command"
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

// Commands are /memory and /forget, in private chats only (a group's
// members would read each other's facts).
type Commands struct {
	Store Store
	// OfferApp, when set, follows /memory's list with the button that
	// opens the user's memory as a Mini App.
	OfferApp func(ctx context.Context, c command.Call) error
}

// Memory lists the user's long-term facts, numbered for /forget.
func (m Commands) Memory(ctx context.Context, c command.Call) error {
	if !c.Private {
		return c.Reply(ctx, texts.For(c.Lang()).FactsPrivate)
	}
	if err := c.ReplyWith(ctx)(List(ctx, m.Store, c.UserID(), c.Lang())); err != nil {
		return err
	}
	if m.OfferApp == nil {
		return nil
	}
	return m.OfferApp(ctx, c)
}

// Forget deletes one fact by its /memory number, or all of them.
func (m Commands) Forget(ctx context.Context, c command.Call) error {
	if !c.Private {
		return c.Reply(ctx, texts.For(c.Lang()).FactsPrivate)
	}
	numbers, all, _ := c.Numbers() // numbers is nil when they are not numbers
	if all {
		return c.ReplyWith(ctx)(ForgetAll(ctx, m.Store, c.UserID(), c.Lang()))
	}
	return c.ReplyWith(ctx)(Forget(ctx, m.Store, c.UserID(), c.Lang(), numbers))
}
