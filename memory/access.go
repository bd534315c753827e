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

// Refuse records a refused message and its access_denied event in one round
// trip. It reports whether the sender should be told: once a day per chat.
func (s *Store) Refuse(ctx context.Context, r Refusal) (answer bool, err error) {
	batch := &pgx.Batch{}
	batch.Queue(refuseSQL, r.UserID, r.ChatID, r.Day, r.UpdateID).QueryRow(func(row pgx.Row) error {
		return row.Scan(&answer)
	})
	s.queueEvent(batch, Event{Type: EventAccessDenied, UserID: r.UserID, ChatID: r.ChatID, UpdateID: r.UpdateID})
	if r.Payload != nil {
		batch.Queue(setUpdatePayloadSQL, r.UpdateID, r.Payload)
	}
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return false, fmt.Errorf("refuse: %w", translate(err))
	}
	return answer, nil
}

// The statements of this file, whole in sql/access.sql.
var (
	refuseSQL           = statement("refuse")
	setUpdatePayloadSQL = statement("setUpdatePayload")
)
