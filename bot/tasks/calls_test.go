package tasks

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/internal/testing/calltest"
	"github.com/membot/membot/memory"
)

func TestTasksCommandListsThemWithTheirButtons(t *testing.T) {
	t.Parallel()
	s := setup()
	r := &calltest.Recorder{}
	if err := (Commands{Store: s, Zone: calltest.UTC{}}).Tasks(context.Background(), r.Call("")); err != nil {
		t.Fatal(err)
	}
	text, rows, _ := List(context.Background(), s, 7, texts.For("en"), time.UTC)
	if len(r.Replies) != 1 || r.Last() != text || len(r.Replies[0].Buttons) != len(rows) {
		t.Errorf("replies = %+v, want the list with %d rows", r.Replies, len(rows))
	}
}

func TestATaskButtonChangesTheTaskAndShowsTheListAsItIsNow(t *testing.T) {
	t.Parallel()
	en := texts.For("en")
	cases := []struct {
		name, args string
		own        int64
		want       string
		status     string // task 7's, after
	}{
		{"pause", "pause:7", 0, en.TaskPaused, memory.TaskPause},
		{"a member's own", "pause:7", 1, en.TaskPaused, memory.TaskPause},
		{"another member's", "pause:7", 2, en.TaskNoSuch, "pending"},
		{"no such task", "delete:99", 0, en.TaskNoSuch, "pending"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := setup()
			r := &calltest.Recorder{Own: c.own}
			if err := (Commands{Store: s, Zone: calltest.UTC{}}).Press(context.Background(), r.Call(c.args)); err != nil {
				t.Fatal(err)
			}
			if len(r.Notices) != 1 || r.Notices[0] != c.want {
				t.Errorf("notices = %q, want %q", r.Notices, c.want)
			}
			text, _, _ := List(context.Background(), s, 7, en, time.UTC)
			if len(r.Edits) != 1 || r.Edits[0].Text != text {
				t.Errorf("edits = %+v, want the list as it is now", r.Edits)
			}
			if s.tasks[0].Status != c.status {
				t.Errorf("task 7 is %q, want %q", s.tasks[0].Status, c.status)
			}
		})
	}
}

func TestATaskButtonFailsWithoutAnswering(t *testing.T) {
	t.Parallel()
	s := setup()
	s.err = errors.New("down")
	r := &calltest.Recorder{}
	if err := (Commands{Store: s, Zone: calltest.UTC{}}).Press(context.Background(), r.Call("pause:7")); err == nil || len(r.Notices)+len(r.Edits) != 0 {
		t.Errorf("err %v, notices %q, edits %+v: want the error only (the update is retried)", err, r.Notices, r.Edits)
	}
}
