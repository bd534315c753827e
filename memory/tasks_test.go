package memory_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/queue"
	"github.com/membot/membot/memory/userdata"
)

// A due task's run enters the inbox once, as a scheduled update the chat's
// claim returns with its run, and the task moves to its next occurrence in
// the same transaction: the occurrences missed meanwhile come to that one.
func TestDueTaskRunsOnceThroughTheInbox(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	const chat = 42
	if err := store.Access().UpsertUser(ctx, memory.User{TelegramUserID: chat, FirstName: "Ann", LanguageCode: "ru"}); err != nil {
		t.Fatal(err)
	}
	due := time.Now().Add(-3 * time.Hour).Truncate(time.Second) // three hourly occurrences missed
	id, err := store.Reminders().AddTask(ctx, memory.Reminder{UserID: chat, ChatID: chat, ThreadID: 5, Text: "weather?", DueAt: due,
		Schedule: "0 * * * *", TimeZone: "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	next := time.Now().Add(time.Hour).Truncate(time.Second)
	var planned []memory.Reminder
	plan := func(r memory.Reminder) (time.Time, bool) { planned = append(planned, r); return next, true }
	runs, err := store.Reminders().RunDueTasks(ctx, 10, plan)
	if err != nil || len(runs) != 1 {
		t.Fatalf("RunDueTasks = %+v, %v; want one run", runs, err)
	}
	if r := runs[0]; r.TaskID != id || r.Prompt != "weather?" || !r.Late || !r.DueAt.Equal(due) || r.From.FirstName != "Ann" || r.Thread != 5 {
		t.Fatalf("run = %+v", r)
	}
	if again, err := store.Reminders().RunDueTasks(ctx, 10, plan); err != nil || len(again) != 0 {
		t.Fatalf("the task ran again: %+v, %v", again, err)
	}
	var status string
	var dueAt time.Time
	var count int
	store.Pool().QueryRow(ctx, `SELECT status, due_at, runs FROM reminders WHERE id = $1`, id).Scan(&status, &dueAt, &count)
	if status != "pending" || !dueAt.Equal(next) || count != 1 {
		t.Fatalf("task after its run: %s, due %v, %d runs", status, dueAt, count)
	}

	owner := store.Inbox().HoldOwnerLock(ctx, log)
	u, err := store.Inbox().ClaimNext(ctx, chat, owner.ID)
	if err != nil || u == nil || u.Run == nil || u.UpdateID >= 0 || u.Run.TaskID != id || !u.Run.Late {
		t.Fatalf("claimed %+v, %v; want the scheduled run", u, err)
	}
	// An update from Telegram whose payload looks like a run is no run.
	if err := store.Inbox().SaveUpdates(ctx, []queue.Update{{UpdateID: 900, ChatID: chat,
		Payload: []byte(`{"update_id":900,"task_run":{"task_id":1,"prompt":"x"}}`)}}); err != nil {
		t.Fatal(err)
	}
	// And it waits while the run is in hand: one update of a chat at a time.
	other := store.Inbox().HoldOwnerLock(ctx, log)
	if v, err := store.Inbox().ClaimNext(ctx, chat, other.ID); err != nil || v != nil {
		t.Fatalf("claimed %+v, %v while the run is in hand", v, err)
	}
	v, err := store.Inbox().CompleteAndClaimNext(ctx, u.UpdateID, nil, "", chat, owner.ID)
	if err != nil || v == nil || v.UpdateID != 900 || v.Run != nil {
		t.Fatalf("next = %+v, %v; want update 900, not a run", v, err)
	}

	// A run in a group is its user's update: erasing the user's data takes
	// it, with the names it carries.
	if _, err := store.Reminders().AddTask(ctx, memory.Reminder{UserID: chat, ChatID: -500, Text: "group task", DueAt: due,
		Schedule: "0 * * * *", TimeZone: "UTC"}); err != nil {
		t.Fatal(err)
	}
	if runs, err := store.Reminders().RunDueTasks(ctx, 10, plan); err != nil || len(runs) != 1 {
		t.Fatalf("the group's task: %+v, %v", runs, err)
	}
	if _, err := userdata.New(store.Pool()).Forget(ctx, chat); err != nil {
		t.Fatal(err)
	}
	var left int
	store.Pool().QueryRow(ctx, `SELECT count(*) FROM updates WHERE task_id IS NOT NULL AND payload::text LIKE '%Ann%'`).Scan(&left)
	if left != 0 {
		t.Fatalf("%d runs naming the forgotten user are left", left)
	}
}

// A scheduled row takes the tasks' bounds, not the reminders'; it can be
// paused, resumed and deleted in its chat by who set it.
func TestTasksAreBoundedPausedAndDeleted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	add := func(user, chat int64) error {
		_, err := store.Reminders().AddTask(ctx, memory.Reminder{UserID: user, ChatID: chat, Text: "p", DueAt: time.Now().Add(time.Hour),
			Schedule: "0 8 * * *", TimeZone: "UTC"})
		return err
	}
	for range memory.MaxTasksPerChat {
		if err := add(1, -100); err != nil {
			t.Fatal(err)
		}
	}
	if err := add(2, -100); !errors.Is(err, memory.ErrTooManyTasks) {
		t.Fatalf("a task over the chat's bound: %v", err)
	}
	for range memory.MaxTasksPerUser - memory.MaxTasksPerChat {
		if err := add(1, 1); err != nil {
			t.Fatal(err)
		}
	}
	if err := add(1, 3); !errors.Is(err, memory.ErrTooManyTasks) {
		t.Fatalf("a task over the user's bound: %v", err)
	}
	// The reminders' own bounds do not count tasks.
	if _, err := store.Reminders().AddReminder(ctx, memory.Reminder{UserID: 1, ChatID: 1, Text: "r", DueAt: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if list, _ := store.Reminders().ChatReminders(ctx, 1); len(list) != 1 {
		t.Fatalf("/reminders lists %d rows, want the one reminder", len(list))
	}

	list, err := store.Reminders().ChatTasks(ctx, -100)
	if err != nil || len(list) != memory.MaxTasksPerChat {
		t.Fatalf("ChatTasks = %d, %v", len(list), err)
	}
	id := list[0].ID
	if _, err := store.Reminders().SetTaskStatus(ctx, -100, id, 2, memory.TaskPause, time.Time{}); !errors.Is(err, memory.ErrNoSuchTask) {
		t.Fatalf("another user paused the task: %v", err)
	}
	paused, err := store.Reminders().SetTaskStatus(ctx, -100, id, 1, memory.TaskPause, time.Time{})
	if err != nil || paused.Status != "paused" {
		t.Fatalf("pause = %+v, %v", paused, err)
	}
	store.Pool().Exec(ctx, `UPDATE reminders SET due_at = now() - interval '1 day' WHERE id = $1`, id)
	if runs, _ := store.Reminders().RunDueTasks(ctx, 10, func(memory.Reminder) (time.Time, bool) { return time.Time{}, false }); len(runs) != 0 {
		t.Fatalf("a paused task ran: %+v", runs)
	}
	next := time.Now().Add(2 * time.Hour).Truncate(time.Second)
	resumed, err := store.Reminders().SetTaskStatus(ctx, -100, id, 0, memory.TaskResume, next)
	if err != nil || resumed.Status != "pending" || !resumed.DueAt.Equal(next) {
		t.Fatalf("resume = %+v, %v", resumed, err)
	}
	// Resuming a task that is not paused would move it past its next run.
	if _, err := store.Reminders().SetTaskStatus(ctx, -100, id, 0, memory.TaskResume, next.Add(time.Hour)); !errors.Is(err, memory.ErrNoSuchTask) {
		t.Fatalf("a running task was resumed: %v", err)
	}
	if _, err := store.Reminders().SetTaskStatus(ctx, -100, id, 1, memory.TaskDelete, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if list, _ := store.Reminders().ChatTasks(ctx, -100); len(list) != memory.MaxTasksPerChat-1 {
		t.Fatalf("%d tasks left after a delete", len(list))
	}
	if _, err := store.Reminders().SetTaskStatus(ctx, -100, id, 1, memory.TaskResume, next); !errors.Is(err, memory.ErrNoSuchTask) {
		t.Fatalf("a deleted task resumed: %v", err)
	}
}

// Tasks added at once from many chats keep to the user's bound: the
// count and the add are taken under the user's lock, so no two adds both
// see room for one more.
func TestTasksAddedAtOnceKeepToTheUsersBound(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	const chats = 60
	start := make(chan struct{})
	var wg sync.WaitGroup
	var added, refused atomic.Int32
	for i := range chats {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, err := store.Reminders().AddTask(ctx, memory.Reminder{UserID: 7, ChatID: -1000 - int64(i), Text: "p",
				DueAt: time.Now().Add(time.Hour), Schedule: "0 8 * * *", TimeZone: "UTC"})
			switch {
			case err == nil:
				added.Add(1)
			case errors.Is(err, memory.ErrTooManyTasks):
				refused.Add(1)
			default:
				t.Error(err)
			}
		}()
	}
	close(start)
	wg.Wait()
	if added.Load() != memory.MaxTasksPerUser || refused.Load() != chats-memory.MaxTasksPerUser {
		t.Fatalf("%d added and %d refused, want %d and %d", added.Load(), refused.Load(), memory.MaxTasksPerUser, chats-memory.MaxTasksPerUser)
	}
}
