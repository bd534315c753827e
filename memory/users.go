package memory

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// User is a Telegram user as Telegram describes them.
type User struct {
	TelegramUserID int64
	Username       string
	FirstName      string
	LastName       string
	LanguageCode   string
}

func upsertUserArgs(u User) []any {
	return []any{u.TelegramUserID, cleanText(u.Username), cleanText(u.FirstName), cleanText(u.LastName), cleanText(u.LanguageCode)}
}

// UpsertUser creates the user's row or refreshes their names and last_seen_at.
func (s *Store) UpsertUser(ctx context.Context, u User) error {
	if _, err := s.pool.Exec(ctx, upsertUserSQL, upsertUserArgs(u)...); err != nil {
		return fmt.Errorf("upsert user: %w", translate(err))
	}
	return nil
}

// Arrived upserts the user and logs the event of their message (a command,
// say: text turns log theirs in StartTurn), in one round trip.
func (s *Store) Arrived(ctx context.Context, u User, e Event) error {
	batch := &pgx.Batch{}
	batch.Queue(upsertUserSQL, upsertUserArgs(u)...)
	s.queueEvent(batch, e)
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return fmt.Errorf("record arrival: %w", translate(err))
	}
	return nil
}

// The statements of this file, whole in sql/users.sql.
var (
	upsertUserSQL = statement("upsertUser")
)
