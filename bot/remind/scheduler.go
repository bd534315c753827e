// Package remind sends reminders when they are due (the set_reminder
// tool stores them; /reminders lists them and /cancel_reminder cancels
// them, commands.go) and starts the runs of scheduled tasks
// (schedule_task; /tasks): a background job of its own, sharing the
// reminders table safely with other processes.
package remind

import (
	"cmp"
	"context"
	"log/slog"
	"time"

	"github.com/membot/membot/bot/present"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/internal/backoff"
	"github.com/membot/membot/internal/schedule"
	"github.com/membot/membot/internal/wake"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/queue"
)

// ReminderQueue is the reminders table as the scheduler works it.
type ReminderQueue interface {
	ClaimDueReminders(ctx context.Context, owner int32, limit int) ([]memory.Reminder, error)
	MarkReminderSent(ctx context.Context, id int64, sent memory.ReminderSent) error
	ReleaseReminder(ctx context.Context, id int64, errText string) error
	FailReminder(ctx context.Context, id int64, errText string) error
	NextReminderDue(ctx context.Context) (time.Time, bool, error)
	RunDueTasks(ctx context.Context, limit int, plan memory.RunPlan) ([]queue.TaskRun, error)
}

// Config is how often the scheduler looks at the table by itself.
// DefaultConfig has the defaults.
type Config struct {
	// Poll is the longest sleep between two looks at the table, so that
	// reminders and tasks set through another process (or by hand) are
	// noticed; DefaultPoll when zero. Not a setting of the environment:
	// tests shorten it.
	Poll time.Duration
	// Location is the zone of a late reminder's due time (TIMEZONE).
	Location *time.Location
}

// DefaultPoll is how often the table is looked at by default.
const DefaultPoll = 30 * time.Second

// DefaultConfig is the settings' defaults.
func DefaultConfig() Config { return Config{Poll: DefaultPoll} }

// lateAfter is how long after its due time a reminder sent by a running
// scheduler counts as late (it sends on time, to the moment; a reminder
// set through another process is noticed within Poll).
const lateAfter = time.Minute

// claimBatch is how many reminders are claimed at once.
const claimBatch = 20

// Scheduler sends reminders when they are due, each exactly once, also when
// several bot processes share the database (rows are claimed with FOR
// UPDATE SKIP LOCKED and owned by the claiming process) and also when the
// bot was down at the due time (then they are sent at start, marked late).
//
// A reminder is marked sent right after Telegram accepted it. The one
// window: if the process dies between the two, the row stays claimed by a
// dead owner and is sent again by the next process that looks.
//
// A due task's run is put in the inbox as an update of its own, and the
// task moved on to its next occurrence after now, in one transaction
// (memory.Reminders.RunDueTasks): the dispatcher runs it as a turn, exactly
// once, as it does a message; the occurrences missed while the bot was
// down come to one run, late. A reminder with a schedule likewise waits
// for its next occurrence once sent.
type Scheduler struct {
	Config
	Queue  ReminderQueue
	Client *telegram.Client
	Owner  int32
	Log    *slog.Logger
	// RunQueued, when set, is told the chat of each task's run put in the
	// inbox (inbox.Dispatcher.Notify), so it starts at once.
	RunQueued func(chats []int64)

	wake    wake.Signal
	started time.Time // Run's since: what fell due before, fell due while the bot was down
}

// Wake tells the scheduler a reminder was added, so it looks again at once.
func (s *Scheduler) Wake(time.Time) { s.wake.Wake() }

// Run sends due reminders until intake ends; sends run with work, so that
// one in flight at shutdown is finished and marked. What fell due before
// since (the bot's start, taken before Run's goroutine is) fell due while
// the bot was down: it is sent late, with a note.
func (s *Scheduler) Run(intake, work context.Context, since time.Time) {
	s.started = since
	poll := cmp.Or(s.Poll, DefaultPoll)
	b := backoff.New(time.Second, time.Minute)
	for intake.Err() == nil {
		wait, err := s.sendDue(intake, work, poll)
		if err != nil {
			if intake.Err() != nil {
				return
			}
			s.Log.Warn("sending reminders failed; retrying", "err", err, "retry_in", b.Peek())
			if !b.Sleep(intake) {
				return
			}
			continue
		}
		b.Reset()
		t := time.NewTimer(wait)
		select {
		case <-intake.Done():
		case <-s.wake.C():
		case <-t.C:
		}
		t.Stop()
	}
}

// sendDue sends every due reminder and returns how long to wait for the
// next one (at most poll).
func (s *Scheduler) sendDue(intake, work context.Context, poll time.Duration) (time.Duration, error) {
	if err := s.runDue(intake); err != nil {
		return 0, err
	}
	for {
		due, err := s.Queue.ClaimDueReminders(intake, s.Owner, claimBatch)
		if err != nil {
			return 0, err
		}
		for _, r := range due {
			if err := s.send(work, r); err != nil {
				return 0, err
			}
		}
		if len(due) < claimBatch {
			break
		}
	}
	next, ok, err := s.Queue.NextReminderDue(intake)
	if err != nil || !ok {
		return poll, err
	}
	// A due row not claimed above is being claimed by another process: look
	// again shortly.
	return min(max(time.Until(next), 50*time.Millisecond), poll), nil
}

// runDue puts the runs of the due tasks in the inbox.
func (s *Scheduler) runDue(ctx context.Context) error {
	for {
		runs, err := s.Queue.RunDueTasks(ctx, claimBatch, s.plan)
		if err != nil {
			return err
		}
		chats := make([]int64, 0, len(runs))
		for _, r := range runs {
			s.Log.Info("scheduled task run queued", "task_id", r.TaskID, "chat_id", r.ChatID, "due_at", r.DueAt, "late", r.Late)
			chats = append(chats, r.ChatID)
		}
		if len(chats) > 0 && s.RunQueued != nil {
			s.RunQueued(chats)
		}
		if len(runs) < claimBatch {
			return nil
		}
	}
}

// plan is when a due task runs next, and whether this run is late.
func (s *Scheduler) plan(r memory.Reminder) (next time.Time, late bool) {
	return s.next(r), s.late(r.DueAt)
}

// late tells whether what was due at due and goes now is late: it fell
// due while the bot was down (before this scheduler started, however
// shortly), or it waited.
func (s *Scheduler) late(due time.Time) bool {
	return due.Before(s.started) || time.Since(due) > lateAfter
}

// next is the first occurrence of r's schedule after now and after its due
// time; zero when it
// has none (or its schedule no longer reads: it is not run again).
func (s *Scheduler) next(r memory.Reminder) time.Time {
	if r.Schedule == "" {
		return time.Time{}
	}
	sch, err := schedule.Stored(r.Schedule, r.TimeZone, s.location())
	if err != nil {
		s.Log.Warn("a scheduled row's schedule does not read; it ends", "reminder_id", r.ID, "schedule", r.Schedule, "err", err)
		return time.Time{}
	}
	// From the later of now and the due time: with this machine's clock
	// behind the database's, now alone could give the same occurrence again.
	return sch.Next(maxTime(time.Now(), r.DueAt))
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func (s *Scheduler) location() *time.Location {
	if s.Location == nil {
		return time.UTC
	}
	return s.Location
}

// send delivers one claimed reminder and marks it. A send that failed for
// good (the user blocked the bot) marks it failed; one that may pass gives
// it back for a later attempt and returns the error.
func (s *Scheduler) send(ctx context.Context, r memory.Reminder) error {
	// Late, with the note the user is told.
	late := s.late(r.DueAt)
	text := texts.For(r.LanguageCode).Reminder(r.Text)
	if late {
		text += texts.For(r.LanguageCode).ReminderLate(texts.Clock(r.DueAt, s.location()))
	}
	p := present.Presenter{Client: s.Client, Log: s.Log}
	ids, err := p.Text(ctx, present.To{Chat: telegram.Chat{ID: r.ChatID, Thread: r.ThreadID}}, text) // to the topic it was set in
	if err != nil {
		final := telegram.IsPermanent(err)
		s.Log.Warn("sending a reminder failed", "reminder_id", r.ID, "chat_id", r.ChatID, "err", err, "given_up", final)
		release := s.Queue.ReleaseReminder
		if final {
			release = s.Queue.FailReminder
		}
		if err := release(ctx, r.ID, err.Error()); err != nil {
			return err
		}
		if final {
			return nil
		}
		return err
	}
	s.Log.Info("reminder sent", "reminder_id", r.ID, "chat_id", r.ChatID, "late", late)
	// Telegram has it now: mark it, retrying while the database is away.
	b := backoff.New(500*time.Millisecond, 30*time.Second)
	sent := memory.ReminderSent{TelegramMessageID: ids[0], Late: late, Next: s.next(r)}
	for {
		err := s.Queue.MarkReminderSent(ctx, r.ID, sent)
		if err == nil {
			return nil
		}
		s.Log.Warn("marking a reminder sent failed; retrying", "reminder_id", r.ID, "err", err, "retry_in", b.Peek())
		if !b.Sleep(ctx) {
			return err
		}
	}
}
