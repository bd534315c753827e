package memory

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/membot/membot/memory/pg"
)

// User is a Telegram user as Telegram describes them.
type User struct {
	TelegramUserID int64
	Username       string
	FirstName      string
	LastName       string
	LanguageCode   string
}

// upsertUserArgs are the arguments of upsertUser: u, its texts cleaned.
func upsertUserArgs(u User) pg.Args {
	return pg.Named(upsertUserParams{
		TelegramUserID: u.TelegramUserID, Username: cleanText(u.Username), FirstName: cleanText(u.FirstName),
		LastName: cleanText(u.LastName), LanguageCode: cleanText(u.LanguageCode),
	})
}

// upsertUserParams are the arguments of upsertUser.
type upsertUserParams struct {
	TelegramUserID int64  `db:"telegram_user_id"`
	Username       string `db:"username"`
	FirstName      string `db:"first_name"`
	LastName       string `db:"last_name"`
	LanguageCode   string `db:"language_code"`
}

// UpsertUser creates the user's row or refreshes their names and last_seen_at.
func (s Access) UpsertUser(ctx context.Context, u User) error {
	if _, err := s.pool.Exec(ctx, upsertUserSQL, upsertUserArgs(u)); err != nil {
		return fmt.Errorf("upsert user: %w", translate(err))
	}
	return nil
}

// Arrived upserts the user and logs the event of their message (a command,
// say: text turns log theirs in StartTurn), in one round trip.
func (s Access) Arrived(ctx context.Context, u User, e Event) error {
	batch := &pgx.Batch{}
	batch.Queue(upsertUserSQL, upsertUserArgs(u))
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
