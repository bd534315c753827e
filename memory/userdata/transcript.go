package userdata

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/membot/membot/memory"
)

// Conversation is one row of the conversations table.
type Conversation struct {
	ID             string    `db:"id"`
	TelegramUserID int64     `db:"telegram_user_id"`
	ChatID         int64     `db:"chat_id"`
	CreatedAt      time.Time `db:"created_at"`
	Mode           string    `db:"mode"`
}

// WalkCurrentTranscript reads the chat's current conversation for export,
// in one read-only transaction so the parts agree: head gets the
// conversation and its number of rows, then each gets every row, oldest
// first, one at a time (a long conversation is never held in memory whole).
// It returns memory.ErrNotFound when the chat has no conversation; an error from
// head or each stops the walk and is returned as is.
func (s *Store) WalkCurrentTranscript(ctx context.Context, chat memory.Chat, head func(c Conversation, rows int) error, each func(m *memory.Message) error) error {
	var callerErr error
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{AccessMode: pgx.ReadOnly, IsoLevel: pgx.RepeatableRead}, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, transcriptConversationSQL, chat.ID, chat.Thread)
		if err != nil {
			return err
		}
		c, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Conversation])
		if err != nil {
			return err
		}
		var n int
		if err := tx.QueryRow(ctx, transcriptCountSQL, c.ID).Scan(&n); err != nil {
			return err
		}
		if callerErr = head(c, n); callerErr != nil {
			return callerErr
		}
		rows, err = tx.Query(ctx, transcriptRowsSQL, c.ID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			m, err := pgx.RowToStructByName[memory.Message](rows)
			if err != nil {
				return err
			}
			if callerErr = each(&m); callerErr != nil {
				return callerErr
			}
		}
		return rows.Err()
	})
	if callerErr != nil {
		return callerErr
	}
	if err != nil {
		return fmt.Errorf("transcript: %w", translate(err))
	}
	return nil
}

// Dialogue returns the newest limit messages that people read in the chat's
// current conversation, oldest first: the user's messages and the final
// answers, without tool calls, tool results and system notes.
func (s *Store) Dialogue(ctx context.Context, chat memory.Chat, limit int) ([]memory.Message, error) {
	rows, err := s.pool.Query(ctx, dialogueSQL, chat.ID, limit, chat.Thread)
	if err != nil {
		return nil, fmt.Errorf("dialogue: %w", translate(err))
	}
	msgs, err := pgx.CollectRows(rows, pgx.RowToStructByName[memory.Message])
	if err != nil {
		return nil, fmt.Errorf("dialogue: %w", translate(err))
	}
	return msgs, nil
}

// The statements of this file, whole in sql/transcript.sql.
var (
	transcriptConversationSQL = statement("transcriptConversation")
	transcriptCountSQL        = statement("transcriptCount")
	transcriptRowsSQL         = statement("transcriptRows")
	dialogueSQL               = statement("dialogue")
)
