package remind

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/memory"
)

// chatReminders is a chat's pending reminders, soonest first, as the
// store keeps them: a member's own, or any, are cancelled by number.
type chatReminders struct{ list []memory.Reminder }

func (c *chatReminders) ChatReminders(context.Context, int64) ([]memory.Reminder, error) {
	return c.list, nil
}

func (c *chatReminders) CancelReminders(_ context.Context, _ int64, numbers []int, ownerID int64) ([]memory.Reminder, error) {
	var cancelled, kept []memory.Reminder
	for i, r := range c.list {
		if (numbers == nil || slices.Contains(numbers, i+1)) && (ownerID == 0 || r.UserID == ownerID) {
			cancelled = append(cancelled, r)
		} else {
			kept = append(kept, r)
		}
	}
	c.list = kept
	return cancelled, nil
}

func TestRemindersAreListedNumberedAndCancelledByNumber(t *testing.T) {
	ctx, en, loc := context.Background(), texts.For("en"), time.UTC
	due := time.Date(2026, 11, 21, 18, 0, 0, 0, time.UTC)
	pending := func() *chatReminders {
		return &chatReminders{list: []memory.Reminder{{UserID: 1, Text: "call mom", DueAt: due}, {UserID: 2, Text: "water", DueAt: due.Add(time.Hour)}}}
	}
	if got, _ := List(ctx, &chatReminders{}, 5, en, loc); got != en.RemindersNone {
		t.Errorf("no reminders listed as %q", got)
	}
	want := en.RemindersList("1. " + texts.Clock(due, loc) + " — call mom\n2. " + texts.Clock(due.Add(time.Hour), loc) + " — water")
	if got, _ := List(ctx, pending(), 5, en, loc); got != want {
		t.Errorf("listed %q, want %q", got, want)
	}
	for _, c := range []struct {
		name    string
		numbers []int
		owner   int64
		want    string
		left    int
	}{
		{"by number", []int{2}, 0, en.RemindersCancelled("• " + texts.Clock(due.Add(time.Hour), loc) + " — water"), 1},
		{"all", nil, 0, en.RemindersCancelled("• " + texts.Clock(due, loc) + " — call mom\n• " + texts.Clock(due.Add(time.Hour), loc) + " — water"), 0},
		{"a number past the list", []int{3}, 0, en.ReminderNoSuch("3"), 2},
		{"another member's", []int{2}, 1, en.RemindersOwnOnly, 2},
	} {
		store := pending()
		got, err := Cancel(ctx, store, 5, c.numbers, c.owner, en, loc)
		if err != nil || got != c.want || len(store.list) != c.left {
			t.Errorf("%s: answered %q (%v), %d left; want %q, %d left", c.name, got, err, len(store.list), c.want, c.left)
		}
	}
	if got, _ := Cancel(ctx, &chatReminders{}, 5, nil, 0, en, loc); got != en.RemindersNone {
		t.Errorf("all of none cancelled: answered %q", got)
	}
}
