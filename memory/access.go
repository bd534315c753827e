package memory

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Refusal is a message from someone not allowed to use the bot.
type Refusal struct {
	UserID   int64
	ChatID   int64
	UpdateID int64
	Day      string // the local day, 2006-01-02
	// Payload replaces the update's stored JSON: nothing a stranger wrote
	// is kept (nil keeps it as it is).
	Payload []byte
}

// refuseSQL counts the refusal and says whether this update is the day's
// first (the one that gets the answer); a retry of that update is too.
const refuseSQL = `INSERT INTO access_refusals (telegram_user_id, chat_id, day, refused_update_id)
VALUES ($1, $2, $3::date, $4)
ON CONFLICT (telegram_user_id, chat_id, day) DO UPDATE SET
	attempts = access_refusals.attempts + (access_refusals.refused_update_id <> EXCLUDED.refused_update_id)::int,
	last_at = now()
RETURNING refused_update_id = $4`

// Refuse records a refused message and its access_denied event in one round
// trip. It reports whether the sender should be told: once a day per chat.
func (s *Store) Refuse(ctx context.Context, r Refusal) (answer bool, err error) {
	batch := &pgx.Batch{}
	batch.Queue(refuseSQL, r.UserID, r.ChatID, r.Day, r.UpdateID).QueryRow(func(row pgx.Row) error {
		return row.Scan(&answer)
	})
	queueEvent(batch, Event{Type: EventAccessDenied, UserID: r.UserID, ChatID: r.ChatID, UpdateID: r.UpdateID})
	if r.Payload != nil {
		batch.Queue(`UPDATE updates SET payload = $2 WHERE update_id = $1`, r.UpdateID, r.Payload)
	}
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return false, fmt.Errorf("refuse: %w", translate(err))
	}
	return answer, nil
}
