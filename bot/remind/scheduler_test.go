package remind

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/internal/testing/telegramfake"
	"github.com/membot/membot/internal/testing/wait"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/queue"
)

// table is the reminders table as the scheduler sees it: due pending rows
// are claimed (sending), then marked sent or released, as memory does;
// each mark and release is recorded.
type table struct {
	mu        sync.Mutex
	rows      []memory.Reminder
	sent      []mark
	released  []release
	runs      []queue.TaskRun
	markFails int // how many of the next MarkReminderSent fail
	looks     int // calls of NextReminderDue: the scheduler's looks
}

type mark struct {
	id, messageID int64
	late          bool
	next          time.Time
}

type release struct {
	id     int64
	failed bool
}

func (q *table) add(r memory.Reminder) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if r.Status == "" {
		r.Status = "pending"
	}
	q.rows = append(q.rows, r)
}

func (q *table) ClaimDueReminders(_ context.Context, _ int32, limit int) ([]memory.Reminder, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	var due []memory.Reminder
	for i := range q.rows {
		r := &q.rows[i]
		if r.Kind == memory.KindReminder && r.Status == "pending" && !r.DueAt.After(time.Now()) && len(due) < limit {
			r.Status = "sending"
			due = append(due, *r)
		}
	}
	return due, nil
}

func (q *table) row(id int64) *memory.Reminder {
	for i := range q.rows {
		if q.rows[i].ID == id {
			return &q.rows[i]
		}
	}
	return nil
}

func (q *table) MarkReminderSent(_ context.Context, id int64, sent memory.ReminderSent) error {
	messageID, late, next := sent.TelegramMessageID, sent.Late, sent.Next
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.markFails > 0 {
		q.markFails--
		return errors.New("database away")
	}
	q.sent = append(q.sent, mark{id, messageID, late, next})
	r := q.row(id)
	r.Status, r.Runs = "sent", r.Runs+1
	if !next.IsZero() {
		r.Status, r.DueAt = "pending", next
	}
	return nil
}

func (q *table) ReleaseReminder(_ context.Context, id int64, _ string) error {
	return q.release(id, false)
}

func (q *table) FailReminder(_ context.Context, id int64, _ string) error { return q.release(id, true) }

func (q *table) release(id int64, failed bool) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.released = append(q.released, release{id, failed})
	q.row(id).Status = map[bool]string{true: "failed", false: "pending"}[failed]
	return nil
}

func (q *table) NextReminderDue(context.Context) (time.Time, bool, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.looks++
	var next time.Time
	for _, r := range q.rows {
		if r.Kind == memory.KindReminder && r.Status == "pending" && (next.IsZero() || r.DueAt.Before(next)) {
			next = r.DueAt
		}
	}
	return next, !next.IsZero(), nil
}

func (q *table) RunDueTasks(_ context.Context, limit int, plan memory.RunPlan) ([]queue.TaskRun, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	var runs []queue.TaskRun
	for i := range q.rows {
		r := &q.rows[i]
		if r.Kind != memory.KindTask || r.Status != "pending" || r.DueAt.After(time.Now()) || len(runs) == limit {
			continue
		}
		next, late := plan(*r)
		run := queue.TaskRun{TaskID: r.ID, ChatID: r.ChatID, Prompt: r.Text, DueAt: r.DueAt, Late: late}
		runs = append(runs, run)
		r.Runs++
		r.DueAt = next
		if next.IsZero() {
			r.Status = "sent"
		}
	}
	q.runs = append(q.runs, runs...)
	return runs, nil
}

func (q *table) snapshot() ([]mark, []release, []queue.TaskRun) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return slices.Clone(q.sent), slices.Clone(q.released), slices.Clone(q.runs)
}

var moscow = time.FixedZone("MSK", 3*3600)

// setup starts a scheduler over q and a fake Telegram; it stops when the
// test ends.
func setup(t *testing.T, q *table, poll time.Duration) (*Scheduler, *telegramfake.Server, func() [][]int64) {
	t.Helper()
	tg := telegramfake.New("1:test")
	client := telegram.NewClient(context.Background(), context.Background(),
		telegram.Config{Token: "1:test", APIURL: tg.URL(), Retry: telegram.SendRetry{Attempts: 1}})
	var mu sync.Mutex
	queued := &[][]int64{}
	s := &Scheduler{Queue: q, Client: client, Owner: 1, Config: Config{Location: moscow},
		Log:       slog.New(slog.NewTextHandler(io.Discard, nil)),
		RunQueued: func(chats []int64) { mu.Lock(); *queued = append(*queued, chats); mu.Unlock() }}
	s.Poll = poll
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); s.Run(ctx, ctx, time.Now()) }()
	t.Cleanup(func() { cancel(); <-done; tg.Close() })
	return s, tg, func() [][]int64 { mu.Lock(); defer mu.Unlock(); return slices.Clone(*queued) }
}

func TestAReminderDueWhileTheBotWasDownIsSentAtOnceAndSaysSo(t *testing.T) {
	t.Parallel()
	q := &table{}
	due := time.Now().Add(-3 * time.Hour).Truncate(time.Minute)
	q.add(memory.Reminder{ID: 1, ChatID: 10, Kind: memory.KindReminder, Text: "call mom", DueAt: due, LanguageCode: "en"})
	_, tg, _ := setup(t, q, time.Hour)
	if !wait.Until(time.Millisecond, func() bool { sent, _, _ := q.snapshot(); return len(sent) == 1 }) {
		t.Fatal("the reminder was not marked sent")
	}
	sent, _, _ := q.snapshot()
	msgs := tg.Messages(10)
	en := texts.For("en")
	want := en.Reminder("call mom") + en.ReminderLate(texts.Clock(due, moscow))
	if len(msgs) != 1 || msgs[0].Text != want {
		t.Fatalf("the chat got %+v, want one %q", msgs, want)
	}
	if m := sent[0]; m.id != 1 || m.messageID != msgs[0].ID || !m.late || !m.next.IsZero() {
		t.Errorf("marked %+v; want late, at its message, no next time", m)
	}
}

func TestAReminderIsSentOnTimeIntoItsTopicAndOnce(t *testing.T) {
	t.Parallel()
	q := &table{}
	s, tg, _ := setup(t, q, time.Hour) // it looks only when woken or due
	tg.EnableTopics()
	topic := tg.CreateTopic(10, "plans")
	if !wait.Until(time.Millisecond, func() bool { q.mu.Lock(); defer q.mu.Unlock(); return q.looks > 0 }) {
		t.Fatal("the scheduler never looked at the table")
	}
	due := time.Now().Add(200 * time.Millisecond)
	q.add(memory.Reminder{ID: 2, ChatID: 10, ThreadID: topic, Kind: memory.KindReminder, Text: "stretch", DueAt: due, LanguageCode: "ru"})
	s.Wake(due)
	if !wait.Until(time.Millisecond, func() bool { sent, _, _ := q.snapshot(); return len(sent) == 1 }) {
		t.Fatal("the reminder was not sent")
	}
	if time.Now().Before(due) {
		t.Fatalf("sent before it was due")
	}
	sent, _, _ := q.snapshot()
	if sent[0].late {
		t.Error("a reminder sent on time was marked late")
	}
	calls := tg.Calls("sendMessage")
	if len(calls) != 1 || calls[0].Params["message_thread_id"] != strconv.FormatInt(topic, 10) || calls[0].Params["text"] != texts.For("ru").Reminder("stretch") {
		t.Errorf("sendMessage calls %+v; want one into topic %d", calls, topic)
	}
}

func TestARecurringReminderWaitsForItsNextTime(t *testing.T) {
	t.Parallel()
	q := &table{}
	q.add(memory.Reminder{ID: 3, ChatID: 10, Kind: memory.KindReminder, Text: "standup", DueAt: time.Now().Add(-time.Second),
		Schedule: "30 9 * * *", TimeZone: "Europe/Moscow"})
	setup(t, q, time.Hour)
	if !wait.Until(time.Millisecond, func() bool { sent, _, _ := q.snapshot(); return len(sent) == 1 }) {
		t.Fatal("the reminder was not sent")
	}
	sent, _, _ := q.snapshot()
	next := sent[0].next
	zone, _ := time.LoadLocation("Europe/Moscow")
	if n := next.In(zone); !next.After(time.Now()) || time.Until(next) > 24*time.Hour || n.Hour() != 9 || n.Minute() != 30 {
		t.Errorf("next time %v; want the next 09:30 in Moscow", next)
	}
}

func TestAFailedSendIsGivenUpForGoodOrGivenBack(t *testing.T) {
	t.Parallel()
	q := &table{}
	q.add(memory.Reminder{ID: 4, ChatID: 11, Kind: memory.KindReminder, Text: "blocked", DueAt: time.Now().Add(-time.Second)})
	q.add(memory.Reminder{ID: 5, ChatID: 12, Kind: memory.KindReminder, Text: "flaky", DueAt: time.Now().Add(-time.Second)})
	s, fake, _ := setup(t, q, time.Hour)
	fake.Inject(telegramfake.Fault{Method: "sendMessage", Status: 403, Message: "Forbidden: bot was blocked by the user", Times: 1,
		If: func(c telegramfake.Call) bool { return c.Params["chat_id"] == "11" }})
	fake.Inject(telegramfake.Fault{Method: "sendMessage", Status: 500, Message: "Internal Server Error", Times: 1,
		If: func(c telegramfake.Call) bool { return c.Params["chat_id"] == "12" }})
	s.Wake(time.Now())
	if !wait.Until(time.Millisecond, func() bool { sent, _, _ := q.snapshot(); return len(sent) == 1 }) {
		t.Fatal("the reminder to the flaky chat was not sent again")
	}
	sent, released, _ := q.snapshot()
	if !slices.Contains(released, release{4, true}) || !slices.Contains(released, release{5, false}) || len(released) != 2 {
		t.Errorf("released %v; want 4 given up, 5 given back", released)
	}
	if sent[0].id != 5 || len(fake.Messages(11)) != 0 || len(fake.Messages(12)) != 1 {
		t.Errorf("sent %v; want only the flaky chat's, once", sent)
	}
}

func TestMarkingSentIsRetriedNotSentTwice(t *testing.T) {
	t.Parallel()
	q := &table{markFails: 1}
	q.add(memory.Reminder{ID: 6, ChatID: 10, Kind: memory.KindReminder, Text: "once", DueAt: time.Now().Add(-time.Second)})
	_, tg, _ := setup(t, q, time.Hour)
	if !wait.Until(time.Millisecond, func() bool { sent, _, _ := q.snapshot(); return len(sent) == 1 }) {
		t.Fatal("the reminder was not marked sent after the database came back")
	}
	if n := len(tg.Messages(10)); n != 1 {
		t.Errorf("the reminder was sent %d times", n)
	}
}

func TestDueTasksAreQueuedOnceWithTheirNextTime(t *testing.T) {
	t.Parallel()
	q := &table{}
	q.add(memory.Reminder{ID: 7, ChatID: 20, Kind: memory.KindTask, Text: "weather", DueAt: time.Now().Add(-2 * time.Hour),
		Schedule: "0 8 * * *", TimeZone: "UTC"})
	q.add(memory.Reminder{ID: 8, ChatID: 21, Kind: memory.KindTask, Text: "once", DueAt: time.Now().Add(-time.Hour)})
	q.add(memory.Reminder{ID: 9, ChatID: 22, Kind: memory.KindTask, Text: "broken", DueAt: time.Now().Add(-time.Hour), Schedule: "not a schedule"})
	_, _, queued := setup(t, q, time.Hour)
	if !wait.Until(time.Millisecond, func() bool { _, _, runs := q.snapshot(); return len(runs) == 3 && len(queued()) > 0 }) {
		t.Fatal("the due tasks were not queued")
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, r := range q.runs {
		if !r.Late {
			t.Errorf("task %d, due before the scheduler started, ran not late", r.TaskID)
		}
	}
	if r := q.row(7); r.Status != "pending" || !r.DueAt.After(time.Now()) || r.DueAt.Hour() != 8 || r.DueAt.Minute() != 0 {
		t.Errorf("the daily task waits until %v (%s); want the next 08:00 UTC", r.DueAt, r.Status)
	}
	for _, id := range []int64{8, 9} {
		if r := q.row(id); r.Status != "sent" || r.Runs != 1 {
			t.Errorf("task %d: %s after %d runs; want run once and ended", id, r.Status, r.Runs)
		}
	}
	if told := queued(); len(told) != 1 || !slices.Equal(told[0], []int64{20, 21, 22}) {
		t.Errorf("the dispatcher was told %v; want the three chats at once", told)
	}
}

func TestLate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		started time.Duration // how long ago the scheduler started
		due     time.Duration // how long ago it was due
		late    bool
	}{
		{"due now", time.Hour, 0, false},
		{"within lateAfter", time.Hour, lateAfter - 5*time.Second, false},
		{"waited past lateAfter", time.Hour, lateAfter + time.Second, true},
		{"due before start, however shortly", 10 * time.Second, 11 * time.Second, true},
	}
	for _, c := range cases {
		s := &Scheduler{started: time.Now().Add(-c.started)}
		if got := s.late(time.Now().Add(-c.due)); got != c.late {
			t.Errorf("%s: late = %v, want %v", c.name, got, c.late)
		}
	}
}
