package remind

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/internal/testing/calltest"
	"github.com/membot/membot/memory"
)

func TestCancelReminderCommand(t *testing.T) {
	t.Parallel()
	en := texts.For("en")
	due := time.Date(2026, 11, 21, 18, 0, 0, 0, time.UTC)
	cases := []struct {
		name, args string
		own        int64 // OwnRows: a group's member
		want       string
		left       int
	}{
		{"no number", "", 0, en.CancelReminderUsage, 2},
		{"not a number", "second", 0, en.CancelReminderUsage, 2},
		{"by number", "2", 0, en.RemindersCancelled("• " + texts.Clock(due.Add(time.Hour), time.UTC) + " — water"), 1},
		{"all", "all", 0, "", 0},
		{"a member's own only", "all", 1, "", 1},
		{"another member's", "2", 1, en.RemindersOwnOnly, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			store := &chatReminders{list: []memory.Reminder{{UserID: 1, Text: "call mom", DueAt: due}, {UserID: 2, Text: "water", DueAt: due.Add(time.Hour)}}}
			r := &calltest.Recorder{Own: c.own}
			if err := (Commands{Store: store, Zone: calltest.UTC{}}).CancelReminder(context.Background(), r.Call(c.args)); err != nil {
				t.Fatal(err)
			}
			if len(r.Replies) != 1 || c.want != "" && r.Last() != c.want {
				t.Errorf("replies = %q, want %q", r.Texts(), c.want)
			}
			if len(store.list) != c.left {
				t.Errorf("%d left, want %d", len(store.list), c.left)
			}
		})
	}
}

func TestRemindersCommandListsThem(t *testing.T) {
	t.Parallel()
	store := &chatReminders{list: []memory.Reminder{{UserID: 1, Text: "call mom", DueAt: time.Date(2026, 11, 21, 18, 0, 0, 0, time.UTC)}}}
	r := &calltest.Recorder{}
	if err := (Commands{Store: store, Zone: calltest.UTC{}}).Reminders(context.Background(), r.Call("")); err != nil {
		t.Fatal(err)
	}
	if want, _ := List(context.Background(), store, 7, texts.For("en"), time.UTC); r.Last() != want {
		t.Errorf("reply = %q, want %q", r.Last(), want)
	}

	// who administers a group is not known: an error, nothing cancelled
	r = &calltest.Recorder{OwnErr: errors.New("getChatMember failed")}
	if err := (Commands{Store: store, Zone: calltest.UTC{}}).CancelReminder(context.Background(), r.Call("1")); err == nil || len(store.list) != 1 {
		t.Errorf("err %v, %d left: want the error and the reminder kept", err, len(store.list))
	}
}
