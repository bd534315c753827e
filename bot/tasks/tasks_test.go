package tasks

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/memory"
)

// store keeps a chat's tasks and records the status changes asked of it,
// refusing a change to another user's task as memory does.
type store struct {
	mu    sync.Mutex
	tasks []memory.Reminder
	set   []change
	err   error
}

type change struct {
	id     int64
	status string
	next   time.Time
}

func (s *store) ChatTasks(context.Context, int64) ([]memory.Reminder, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]memory.Reminder(nil), s.tasks...), s.err
}

func (s *store) SetTaskStatus(_ context.Context, _ int64, id, userID int64, status string, next time.Time) (*memory.Reminder, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return nil, s.err
	}
	for i := range s.tasks {
		r := &s.tasks[i]
		if r.ID != id || (userID != 0 && r.UserID != userID) {
			continue
		}
		s.set = append(s.set, change{id, status, next})
		r.Status = status
		if !next.IsZero() {
			r.DueAt = next
		}
		out := *r
		return &out, nil
	}
	return nil, memory.ErrNoSuchTask
}

var due = time.Date(2030, 5, 6, 7, 8, 0, 0, time.UTC)

// setup is a chat with a daily task of user 1 (id 7) and a paused
// weekly reminder of user 2 (id 8).
func setup() *store {
	return &store{tasks: []memory.Reminder{
		{ID: 7, UserID: 1, Kind: memory.KindTask, Text: "tell me\nthe weather", Schedule: "0 8 * * *", TimeZone: "UTC",
			Status: "pending", DueAt: due},
		{ID: 8, UserID: 2, Kind: memory.KindReminder, Text: "water the plants", Schedule: "0 9 * * 1", TimeZone: "UTC",
			Status: memory.TaskPause, DueAt: due},
	}}
}

func TestListShowsEachTaskWithItsButtons(t *testing.T) {
	t.Parallel()
	en := texts.For("en")
	text, rows, err := List(context.Background(), setup(), -100, en, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	lines := en.TaskLine(1, "tell me the weather", "0 8 * * *", "UTC") + en.TaskNext("2030-05-06 07:08") + "\n" +
		en.TaskLine(2, en.TaskReminder+"water the plants", "0 9 * * 1", "UTC") + en.TaskIsPaused
	if want := en.TasksList(lines); text != want {
		t.Errorf("List text:\n%s\nwant:\n%s", text, want)
	}
	want := [][]telegram.Button{
		{{Text: en.TaskPause(1), Data: "task:pause:7"}, {Text: en.TaskDelete(1), Data: "task:delete:7"}},
		{{Text: en.TaskResume(2), Data: "task:resume:8"}, {Text: en.TaskDelete(2), Data: "task:delete:8"}},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows of buttons, want %d", len(rows), len(want))
	}
	for i := range want {
		for j := range want[i] {
			if rows[i][j] != want[i][j] {
				t.Errorf("button %d.%d = %+v, want %+v", i, j, rows[i][j], want[i][j])
			}
		}
	}
}

func TestListBoundsEachPromptAndSaysWhenThereAreNone(t *testing.T) {
	t.Parallel()
	en := texts.For("en")
	s := &store{tasks: []memory.Reminder{{ID: 1, Kind: memory.KindTask, Text: strings.Repeat("я", 5000), Schedule: "0 8 * * *", DueAt: due}}}
	text, _, err := List(context.Background(), s, -100, en, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text, strings.Repeat("я", previewRunes)) || !strings.Contains(text, strings.Repeat("я", previewRunes-1)+"…") {
		t.Errorf("a long prompt is not cut to %d runes: %d runes listed", previewRunes, strings.Count(text, "я"))
	}
	text, rows, err := List(context.Background(), &store{}, -100, en, time.UTC)
	if err != nil || text != en.TasksNone || rows != nil {
		t.Errorf("List of none = %q, %v, %v; want %q", text, rows, err, en.TasksNone)
	}
}

func TestPress(t *testing.T) {
	t.Parallel()
	en := texts.For("en")
	cases := []struct {
		name   string
		userID int64
		arg    string
		want   string
		status string // the change the store was asked for; "" none
	}{
		{"pause", 1, "pause:7", en.TaskPaused, memory.TaskPause},
		{"delete", 1, "delete:7", en.TaskDeleted, memory.TaskDelete},
		{"an admin's press, for anyone", 0, "delete:8", en.TaskDeleted, memory.TaskDelete},
		{"another user's task", 2, "pause:7", en.TaskNoSuch, ""},
		{"a task not of the chat", 1, "pause:99", en.TaskNoSuch, ""},
		{"resume a task not of the chat", 1, "resume:99", en.TaskNoSuch, ""},
		{"an unknown action", 1, "explode:7", en.TaskNoSuch, ""},
		{"no number", 1, "pause:seven", en.TaskNoSuch, ""},
		{"nothing", 1, "", en.TaskNoSuch, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := setup()
			got, err := Press(context.Background(), s, -100, c.userID, c.arg, en, time.UTC)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("Press(%q) = %q, want %q", c.arg, got, c.want)
			}
			if c.status == "" && len(s.set) != 0 || c.status != "" && (len(s.set) != 1 || s.set[0].status != c.status) {
				t.Errorf("store changes %+v, want one to %q", s.set, c.status)
			}
		})
	}
}

func TestAResumedTaskRunsAtItsNextOccurrenceNotTheOnesItMissed(t *testing.T) {
	t.Parallel()
	en := texts.For("en")
	s := setup()
	before := time.Now()
	got, err := Press(context.Background(), s, -100, 2, "resume:8", en, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.set) != 1 || s.set[0].status != memory.TaskResume {
		t.Fatalf("store changes %+v, want one resume", s.set)
	}
	next := s.set[0].next
	if !next.After(before) || next.Sub(before) > 7*24*time.Hour || next.Weekday() != time.Monday || next.Hour() != 9 || next.Minute() != 0 {
		t.Errorf("resumed to run at %v; want the next Monday 09:00 UTC after %v", next, before)
	}
	if want := en.TaskResumed(texts.Clock(next, time.UTC)); got != want {
		t.Errorf("Press = %q, want %q", got, want)
	}
}

func TestADatabaseFailureIsAnError(t *testing.T) {
	t.Parallel()
	away := errors.New("database away")
	s := setup()
	s.err = away
	en := texts.For("en")
	if _, _, err := List(context.Background(), s, -100, en, time.UTC); !errors.Is(err, away) {
		t.Errorf("List: %v, want the store's error", err)
	}
	for _, arg := range []string{"pause:7", "resume:8"} {
		if _, err := Press(context.Background(), s, -100, 1, arg, en, time.UTC); !errors.Is(err, away) {
			t.Errorf("Press(%q): %v, want the store's error", arg, err)
		}
	}
}
