package memory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/membot/membot/memory/pg"
	"github.com/membot/membot/memory/queue"
)

// Reminders keeps the reminders and the scheduled tasks, and puts each
// task's run in the inbox of updates. It is safe for concurrent use.
type Reminders struct {
	base
	inbox *queue.Store
}

// Reminder is a row of reminders.
type Reminder struct {
	ID              int64     `db:"id"`
	UserID          int64     `db:"telegram_user_id"`
	ChatID          int64     `db:"chat_id"`
	Text            string    `db:"text"`
	DueAt           time.Time `db:"due_at"`
	SourceMessageID int64     `db:"source_message_id"`
	Attempts        int       `db:"attempts"`
	LanguageCode    string    `db:"language_code"` // of the user who set it
	// ThreadID is the topic of the private chat it was set in (0: none):
	// it is sent there.
	ThreadID int64 `db:"message_thread_id"`
	// Kind is KindReminder (its text is sent) or KindTask (its text is
	// the prompt of a turn run in the chat).
	Kind string `db:"kind"`
	// Schedule, when set, makes it recur: five cron fields read in
	// TimeZone (internal/schedule). DueAt is then the next occurrence.
	Schedule string `db:"schedule"`
	TimeZone string `db:"time_zone"`
	Status   string `db:"status"` // pending, sending, paused, sent, cancelled, failed
	Runs     int    `db:"runs"`   // how many times it was sent or run
}

// The kinds of rows of reminders.
const (
	KindReminder = "reminder"
	KindTask     = "task"
)

// addReminderParams are the arguments of addReminder: the row, and the
// bounds it may not pass.
type addReminderParams struct {
	UserID          int64     `db:"telegram_user_id"`
	ChatID          int64     `db:"chat_id"`
	Text            string    `db:"text"`
	DueAt           time.Time `db:"due_at"`
	SourceMessageID int64     `db:"source_message_id"`
	ThreadID        int64     `db:"message_thread_id"`
	MaxPending      int       `db:"max_pending"`
	MaxPerHour      int       `db:"max_per_hour"`
}

// AddReminder stores a pending reminder and returns its id.
func (s Reminders) AddReminder(ctx context.Context, r Reminder) (int64, error) {
	var id int64
	err := s.pool.QueryRow(ctx, addReminderSQL, pg.Named(addReminderParams{
		UserID: r.UserID, ChatID: r.ChatID, Text: cleanText(r.Text), DueAt: r.DueAt, SourceMessageID: r.SourceMessageID,
		ThreadID: r.ThreadID, MaxPending: MaxPendingReminders, MaxPerHour: MaxRemindersPerHour,
	})).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("add reminder: %w (at most %d waiting for a user or a chat, %d set in a chat an hour)",
			ErrTooManyReminders, MaxPendingReminders, MaxRemindersPerHour)
	}
	if err != nil {
		return 0, fmt.Errorf("add reminder: %w", translate(err))
	}
	return id, nil
}

// The bounds on reminders, so that a model (or a page it read) cannot fill
// a chat with them: waiting ones per user and per chat, and new ones per
// chat an hour.
const (
	MaxPendingReminders = 50
	MaxRemindersPerHour = 20
)

// ErrTooManyReminders is returned when a reminder would pass those bounds.
var ErrTooManyReminders = errors.New("too many reminders")

// ClaimDueReminders claims up to limit due reminders for owner, oldest due
// first. The caller sends each one and then marks it with MarkReminderSent
// or ReleaseReminder.
func (s Reminders) ClaimDueReminders(ctx context.Context, owner int32, limit int) ([]Reminder, error) {
	rows, err := s.pool.Query(ctx, claimRemindersSQL, owner, limit)
	if err != nil {
		return nil, fmt.Errorf("claim reminders: %w", translate(err))
	}
	due, err := pgx.CollectRows(rows, pgx.RowToStructByName[Reminder])
	if err != nil {
		return nil, fmt.Errorf("claim reminders: %w", translate(err))
	}
	return due, nil
}

// markReminderSentParams are the arguments of markReminderSent.
type markReminderSentParams struct {
	ID                int64      `db:"id"`
	TelegramMessageID int64      `db:"telegram_message_id"`
	Late              bool       `db:"late"`
	DueAt             *time.Time `db:"due_at"` // nil: done
}

// ReminderSent is how a claimed reminder reached Telegram.
type ReminderSent struct {
	TelegramMessageID int64
	Late              bool      // sent later than it was due (the text says so)
	Next              time.Time // its next occurrence; zero: it is done
}

// MarkReminderSent records that claimed reminder id reached Telegram as
// sent says. A reminder with a schedule waits again, for sent.Next.
func (s Reminders) MarkReminderSent(ctx context.Context, id int64, sent ReminderSent) error {
	var nextAt *time.Time
	if !sent.Next.IsZero() {
		nextAt = &sent.Next
	}
	_, err := s.pool.Exec(ctx, markReminderSentSQL, pg.Named(markReminderSentParams{
		ID: id, TelegramMessageID: sent.TelegramMessageID, Late: sent.Late, DueAt: nextAt,
	}))
	if err != nil {
		return fmt.Errorf("mark reminder sent: %w", translate(err))
	}
	return nil
}

// ReleaseReminder gives a claimed reminder back after a send that failed
// for now: it is tried again later.
func (s Reminders) ReleaseReminder(ctx context.Context, id int64, errText string) error {
	return s.releaseReminder(ctx, id, "pending", errText)
}

// FailReminder gives a claimed reminder up after a send that failed for
// good (the user blocked the bot): it is never tried again.
func (s Reminders) FailReminder(ctx context.Context, id int64, errText string) error {
	return s.releaseReminder(ctx, id, "failed", errText)
}

// releaseReminder sets a claimed reminder's status (pending or failed)
// and the error that ended its send.
func (s Reminders) releaseReminder(ctx context.Context, id int64, status, errText string) error {
	_, err := s.pool.Exec(ctx, releaseReminderSQL, id, status, s.storable(errText))
	if err != nil {
		return fmt.Errorf("release reminder: %w", translate(err))
	}
	return nil
}

// NextReminderDue returns when the earliest reminder that ClaimDueReminders
// could take is due; ok is false when there is none.
func (s Reminders) NextReminderDue(ctx context.Context) (due time.Time, ok bool, err error) {
	var next *time.Time
	if err := s.pool.QueryRow(ctx, nextReminderDueSQL).Scan(&next); err != nil {
		return time.Time{}, false, fmt.Errorf("next reminder: %w", translate(err))
	}
	if next == nil {
		return time.Time{}, false, nil
	}
	return *next, true, nil
}

// ChatReminders returns the chat's pending reminders, soonest first.
func (s Reminders) ChatReminders(ctx context.Context, chatID int64) ([]Reminder, error) {
	rows, err := s.pool.Query(ctx, chatRemindersSQL, chatID)
	if err != nil {
		return nil, fmt.Errorf("chat reminders: %w", translate(err))
	}
	list, err := pgx.CollectRows(rows, pgx.RowToStructByName[Reminder])
	if err != nil {
		return nil, fmt.Errorf("chat reminders: %w", translate(err))
	}
	return list, nil
}

// CancelReminders cancels the chat's pending reminders numbered as
// ChatReminders lists them (1 is the soonest), or all of them when numbers
// is empty, and returns those cancelled. With an ownerID, only that user's
// reminders among them are cancelled (the numbers stay the chat's).
func (s Reminders) CancelReminders(ctx context.Context, chatID int64, numbers []int, ownerID int64) ([]Reminder, error) {
	if numbers == nil {
		numbers = []int{} // NULL would match nothing
	}
	rows, err := s.pool.Query(ctx, cancelRemindersSQL, chatID, numbers, ownerID)
	if err != nil {
		return nil, fmt.Errorf("cancel reminders: %w", translate(err))
	}
	list, err := pgx.CollectRows(rows, pgx.RowToStructByName[Reminder])
	if err != nil {
		return nil, fmt.Errorf("cancel reminders: %w", translate(err))
	}
	slices.SortFunc(list, func(a, b Reminder) int { return a.DueAt.Compare(b.DueAt) })
	return list, nil
}

// The statements of this file, whole in sql/reminders.sql.
var (
	addReminderSQL      = statement("addReminder")
	claimRemindersSQL   = statement("claimReminders")
	markReminderSentSQL = statement("markReminderSent")
	releaseReminderSQL  = statement("releaseReminder")
	nextReminderDueSQL  = statement("nextReminderDue")
	chatRemindersSQL    = statement("chatReminders")
	cancelRemindersSQL  = statement("cancelReminders")
)
