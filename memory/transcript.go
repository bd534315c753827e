package memory

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Conversation is one row of the conversations table.
type Conversation struct {
	ID             string    `db:"id"`
	TelegramUserID int64     `db:"telegram_user_id"`
	ChatID         int64     `db:"chat_id"`
	CreatedAt      time.Time `db:"created_at"`
	Mode           string    `db:"mode"`
}

// Transcript is a whole conversation, for export.
type Transcript struct {
	Conversation Conversation
	Messages     []Message // every row, oldest first
}

// CurrentTranscript returns the chat's current conversation with all its
// messages, read in one transaction so the two agree. It returns ErrNotFound
// when the chat has no conversation.
func (s *Store) CurrentTranscript(ctx context.Context, chatID int64) (*Transcript, error) {
	t := &Transcript{}
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{AccessMode: pgx.ReadOnly, IsoLevel: pgx.RepeatableRead}, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT id::text AS id, telegram_user_id, chat_id, created_at, mode
			FROM conversations WHERE id = `+currentConversationIDSQL, chatID)
		if err != nil {
			return err
		}
		if t.Conversation, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Conversation]); err != nil {
			return err
		}
		rows, err = tx.Query(ctx, `SELECT `+messageColumns+` FROM messages WHERE conversation_id = $1 ORDER BY id`, t.Conversation.ID)
		if err != nil {
			return err
		}
		t.Messages, err = pgx.CollectRows(rows, pgx.RowToStructByName[Message])
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", translate(err))
	}
	return t, nil
}

// Dialogue returns the newest limit messages that people read in the chat's
// current conversation, oldest first: the user's messages and the final
// answers, without tool calls, tool results and system notes.
func (s *Store) Dialogue(ctx context.Context, chatID int64, limit int) ([]Message, error) {
	rows, err := s.pool.Query(ctx, `SELECT * FROM (SELECT `+messageColumns+` FROM messages
		WHERE conversation_id = `+currentConversationIDSQL+`
		  AND (role = 'user' OR (role = 'assistant' AND tool_calls IS NULL))
		ORDER BY id DESC LIMIT $2) newest ORDER BY id`, chatID, limit)
	if err != nil {
		return nil, fmt.Errorf("dialogue: %w", translate(err))
	}
	msgs, err := pgx.CollectRows(rows, pgx.RowToStructByName[Message])
	if err != nil {
		return nil, fmt.Errorf("dialogue: %w", translate(err))
	}
	return msgs, nil
}
