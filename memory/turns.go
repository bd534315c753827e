package memory

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// TurnStart is what a new turn stores: who wrote what, in which chat.
type TurnStart struct {
	User              User
	ChatID            int64
	UpdateID          int64 // the Telegram update being answered; 0 when none
	TelegramMessageID int64
	Content           string // the text as the model will see it
	HistoryLimit      int
}

// Turn is the state a turn works from.
type Turn struct {
	ConversationID string
	UserMessageID  int64
	// History is the newest HistoryLimit rows of the conversation, oldest
	// first; the user's new row is the last of them.
	History []Message
	// Answer is the final assistant row already stored for this update by an
	// earlier attempt that was cut short, or nil.
	Answer *Message
}

// insertUserMessageSQL stores the user's row in the chat's current
// conversation. A second attempt at the same update stores nothing.
const insertUserMessageSQL = `WITH ` + currentConversationCTE + `
INSERT INTO messages (conversation_id, role, content, telegram_message_id, update_id)
SELECT id, 'user', $3, NULLIF($4::bigint, 0), NULLIF($5::bigint, 0) FROM conv
ON CONFLICT (update_id) WHERE role = 'user' DO NOTHING`

// turnUserRowSQL finds the turn's user row. When the update is known, its
// row names the conversation (a retried turn stays in the conversation it
// began in); otherwise it is the newest row of the chat's current conversation.
const turnUserRowSQL = `SELECT m.id, m.conversation_id FROM messages m
WHERE ($2::bigint <> 0 AND m.update_id = $2::bigint AND m.role = 'user')
   OR ($2::bigint = 0 AND m.conversation_id =
       (SELECT id FROM conversations WHERE chat_id = $1::bigint ORDER BY created_at DESC LIMIT 1))
ORDER BY m.id DESC LIMIT 1`

const turnAnswerSQL = `SELECT ` + messageColumns + ` FROM messages
WHERE update_id = $1 AND role = 'assistant' AND tool_calls IS NULL ORDER BY id DESC LIMIT 1`

// StartTurn upserts the user, stores their message in the chat's current
// conversation and loads the history, in one round trip.
func (s *Store) StartTurn(ctx context.Context, in TurnStart) (*Turn, error) {
	t := &Turn{}
	batch := &pgx.Batch{}
	batch.Queue(upsertUserSQL, upsertUserArgs(in.User)...)
	batch.Queue(insertUserMessageSQL, in.ChatID, in.User.TelegramUserID, cleanText(in.Content), in.TelegramMessageID, in.UpdateID)
	batch.Queue(`SELECT conversation_id::text, id FROM (`+turnUserRowSQL+`) r`, in.ChatID, in.UpdateID).
		QueryRow(func(row pgx.Row) error { return row.Scan(&t.ConversationID, &t.UserMessageID) })
	batch.Queue(lastMessagesQuery(`(SELECT conversation_id FROM (`+turnUserRowSQL+`) r)`, "$3"),
		in.ChatID, in.UpdateID, in.HistoryLimit).Query(func(rows pgx.Rows) error {
		var err error
		t.History, err = pgx.CollectRows(rows, pgx.RowToStructByName[Message])
		return err
	})
	if in.UpdateID != 0 {
		batch.Queue(turnAnswerSQL, in.UpdateID).Query(func(rows pgx.Rows) error {
			answer, err := pgx.CollectExactlyOneRow(rows, pgx.RowToAddrOfStructByName[Message])
			if errors.Is(err, pgx.ErrNoRows) {
				return nil
			}
			t.Answer = answer
			return err
		})
	}
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return nil, fmt.Errorf("start turn: %w", translate(err))
	}
	return t, nil
}
