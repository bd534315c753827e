package memory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
)

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
}

const reminderColumns = `r.id, r.telegram_user_id, r.chat_id, r.text, r.due_at,
	coalesce(r.source_message_id, 0) AS source_message_id, r.attempts,
	coalesce((SELECT language_code FROM users u WHERE u.telegram_user_id = r.telegram_user_id), '') AS language_code,
	coalesce(r.message_thread_id, 0) AS message_thread_id`

// AddReminder stores a pending reminder and returns its id.
func (s *Store) AddReminder(ctx context.Context, r Reminder) (int64, error) {
	var id int64
	err := s.pool.QueryRow(ctx, addReminderSQL, r.UserID, r.ChatID, cleanText(r.Text), r.DueAt, r.SourceMessageID,
		MaxPendingReminders, MaxRemindersPerHour, r.ThreadID).Scan(&id)
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

// addReminderSQL adds the reminder unless it would pass the bounds above;
// then it returns no row. $8 is the topic.
var addReminderSQL = `INSERT INTO reminders (telegram_user_id, chat_id, text, due_at, source_message_id, message_thread_id)
SELECT $1, $2, $3, $4, NULLIF($5::bigint, 0), ` + newThread("$8") + `
WHERE (SELECT count(*) FROM reminders WHERE telegram_user_id = $1 AND status IN ('pending', 'sending')) < $6
  AND (SELECT count(*) FROM reminders WHERE chat_id = $2 AND status IN ('pending', 'sending')) < $6
  AND (SELECT count(*) FROM reminders WHERE chat_id = $2 AND created_at > now() - interval '1 hour') < $7
RETURNING id`

// claimRemindersSQL takes up to $2 due reminders for owner $1: pending ones,
// and ones another process claimed but died before marking sent. SKIP LOCKED
// lets several processes claim at once, each getting different rows.
const claimRemindersSQL = `UPDATE reminders r
SET status = 'sending', owner_id = $1, claimed_at = now(), attempts = r.attempts + 1
FROM (SELECT id FROM reminders
      WHERE due_at <= now()
        AND (status = 'pending' OR (status = 'sending' AND NOT membot_owner_alive(owner_id)))
      ORDER BY due_at, id LIMIT $2 FOR UPDATE SKIP LOCKED) due
WHERE r.id = due.id
RETURNING ` + reminderColumns

// ClaimDueReminders claims up to limit due reminders for owner, oldest due
// first. The caller sends each one and then marks it with MarkReminderSent
// or ReleaseReminder.
func (s *Store) ClaimDueReminders(ctx context.Context, owner int32, limit int) ([]Reminder, error) {
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

// MarkReminderSent records that a claimed reminder reached Telegram.
func (s *Store) MarkReminderSent(ctx context.Context, id, telegramMessageID int64, late bool) error {
	_, err := s.pool.Exec(ctx, `UPDATE reminders SET status = 'sent', sent_at = now(), late = $3,
		telegram_message_id = NULLIF($2::bigint, 0), error = NULL WHERE id = $1`, id, telegramMessageID, late)
	if err != nil {
		return fmt.Errorf("mark reminder sent: %w", translate(err))
	}
	return nil
}

// ReleaseReminder gives a claimed reminder back after a failed send: it is
// tried again later, or, when failed is set, never.
func (s *Store) ReleaseReminder(ctx context.Context, id int64, errText string, failed bool) error {
	status := "pending"
	if failed {
		status = "failed"
	}
	_, err := s.pool.Exec(ctx, `UPDATE reminders SET status = $2, owner_id = NULL, error = $3 WHERE id = $1`, id, status, errText)
	if err != nil {
		return fmt.Errorf("release reminder: %w", translate(err))
	}
	return nil
}

// NextReminderDue returns when the earliest reminder that ClaimDueReminders
// could take is due; ok is false when there is none.
func (s *Store) NextReminderDue(ctx context.Context) (due time.Time, ok bool, err error) {
	var next *time.Time
	if err := s.pool.QueryRow(ctx, `SELECT min(due_at) FROM reminders
		WHERE status = 'pending' OR (status = 'sending' AND NOT membot_owner_alive(owner_id))`).Scan(&next); err != nil {
		return time.Time{}, false, fmt.Errorf("next reminder: %w", translate(err))
	}
	if next == nil {
		return time.Time{}, false, nil
	}
	return *next, true, nil
}

// chatRemindersOrder numbers a chat's pending reminders for /reminders.
const chatRemindersOrder = `due_at, id`

// ChatReminders returns the chat's pending reminders, soonest first.
func (s *Store) ChatReminders(ctx context.Context, chatID int64) ([]Reminder, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+reminderColumns+` FROM reminders r
		WHERE chat_id = $1 AND status = 'pending' ORDER BY `+chatRemindersOrder, chatID)
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
func (s *Store) CancelReminders(ctx context.Context, chatID int64, numbers []int, ownerID int64) ([]Reminder, error) {
	if numbers == nil {
		numbers = []int{} // NULL would match nothing
	}
	rows, err := s.pool.Query(ctx, `UPDATE reminders r SET status = 'cancelled' FROM (
			SELECT id, row_number() OVER (ORDER BY `+chatRemindersOrder+`) AS n
			FROM reminders WHERE chat_id = $1 AND status = 'pending') numbered
		WHERE r.id = numbered.id AND (cardinality($2::int[]) = 0 OR numbered.n = ANY($2::int[]))
		  AND ($3::bigint = 0 OR r.telegram_user_id = $3)
		RETURNING `+reminderColumns, chatID, numbers, ownerID)
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
