package memory

import (
	"context"
	"fmt"
)

// User is a Telegram user as Telegram describes them.
type User struct {
	TelegramUserID int64
	Username       string
	FirstName      string
	LastName       string
	LanguageCode   string
}

const upsertUserSQL = `INSERT INTO users (telegram_user_id, username, first_name, last_name, language_code)
VALUES ($1, NULLIF($2, ''), NULLIF($3, ''), NULLIF($4, ''), NULLIF($5, ''))
ON CONFLICT (telegram_user_id) DO UPDATE SET
	username = EXCLUDED.username, first_name = EXCLUDED.first_name, last_name = EXCLUDED.last_name,
	language_code = EXCLUDED.language_code, last_seen_at = now()`

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
