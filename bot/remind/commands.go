package remind

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/membot/membot/bot/command"
	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/memory"
)

// Store is what /reminders and /cancel_reminder read and change.
type Store interface {
	ChatReminders(ctx context.Context, chatID int64) ([]memory.Reminder, error)
	CancelReminders(ctx context.Context, chatID int64, numbers []int, ownerID int64) ([]memory.Reminder, error)
}

// List is /reminders' answer: the chat's pending reminders, soonest
// first, numbered for /cancel_reminder, their times in loc.
func List(ctx context.Context, store Store, chatID int64, t *texts.Texts, loc *time.Location) (string, error) {
	list, err := store.ChatReminders(ctx, chatID)
	if err != nil {
		return "", err
	}
	if len(list) == 0 {
		return t.RemindersNone, nil
	}
	return t.RemindersList(lines(list, true, loc)), nil
}

// Cancel is /cancel_reminder's answer: it cancels the chat's reminders by
// their /reminders numbers, or all of them when numbers is nil; ownerID,
// when not 0, cancels only that member's own.
func Cancel(ctx context.Context, store Store, chatID int64, numbers []int, ownerID int64, t *texts.Texts, loc *time.Location) (string, error) {
	cancelled, err := store.CancelReminders(ctx, chatID, numbers, ownerID)
	if err != nil {
		return "", err
	}
	switch {
	case len(cancelled) > 0:
		return t.RemindersCancelled(lines(cancelled, false, loc)), nil
	case ownerID != 0:
		return t.RemindersOwnOnly, nil
	case numbers == nil:
		return t.RemindersNone, nil
	}
	return t.ReminderNoSuch(strings.Trim(fmt.Sprint(numbers), "[]")), nil
}

// lines shows reminders one per line: "1. 2026-11-21 18:00 — text".
func lines(list []memory.Reminder, numbered bool, loc *time.Location) string {
	out := make([]string, len(list))
	for i, r := range list {
		out[i] = texts.Clock(r.DueAt, loc) + " — " + r.Text
		if numbered {
			out[i] = strconv.Itoa(i+1) + ". " + out[i]
		} else {
			out[i] = "• " + out[i]
		}
	}
	return strings.Join(out, "\n")
}

// Zone is the zone the bot shows times in (access.Policy).
type Zone interface {
	Zone() *time.Location
}

// Commands are /reminders and /cancel_reminder.
type Commands struct {
	Store Store
	Zone  Zone
}

// Reminders lists the chat's pending reminders.
func (r Commands) Reminders(ctx context.Context, c command.Call) error {
	return c.ReplyWith(ctx)(List(ctx, r.Store, c.Chat.ID, texts.For(c.Lang()), r.Zone.Zone()))
}

// CancelReminder cancels reminders by their /reminders numbers
// ("/cancel_reminder 2", "/cancel_reminder 1 3"), or all of them; in a
// group, a member's own only.
func (r Commands) CancelReminder(ctx context.Context, c command.Call) error {
	t := texts.For(c.Lang())
	numbers, all, ok := c.Numbers()
	if !ok {
		return c.Reply(ctx, t.CancelReminderUsage)
	}
	if all {
		numbers = nil
	}
	owner, err := c.OwnRows(ctx)
	if err != nil {
		return err
	}
	return c.ReplyWith(ctx)(Cancel(ctx, r.Store, c.Chat.ID, numbers, owner, t, r.Zone.Zone()))
}
