package memory

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// ErrNoUserMessage is returned by Undo and StartRetry when the chat's current
// conversation has no user message to take back or to answer again.
var ErrNoUserMessage = errors.New("the conversation has no user message")

// Rollback is what /undo or /retry took out of a conversation.
type Rollback struct {
	// UserMessage is the user's message that /undo took back; nil for /retry
	// and when Repeated.
	UserMessage *Message
	Removed     int          // rows removed, UserMessage included
	ByRole      map[Role]int // the same, per role
	// Repeated is true when an earlier attempt at the same command (cut short
	// by a crash) had already done it: nothing more was removed this time.
	Repeated bool
}

// currentConversationIDSQL is the chat $1's current conversation, or NULL.
const currentConversationIDSQL = `(SELECT id FROM conversations WHERE chat_id = $1 ORDER BY created_at DESC LIMIT 1)`

const lastUserRowSQL = `SELECT ` + messageColumns + ` FROM messages
WHERE conversation_id = ` + currentConversationIDSQL + ` AND role = 'user' ORDER BY id DESC LIMIT 1`

// Undo takes back the last exchange of the chat's current conversation: its
// last user message and every row after it, in one transaction. updateID is
// the command's update: a second attempt at the same update removes nothing
// more and says so (Repeated). It returns ErrNoUserMessage when there is
// nothing left to take back.
func (s *Store) Undo(ctx context.Context, chatID, updateID int64) (*Rollback, error) {
	var r *Rollback
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		if r, err = earlierRollback(ctx, tx, updateID); r != nil || err != nil {
			return err
		}
		rows, err := tx.Query(ctx, lastUserRowSQL, chatID)
		if err != nil {
			return err
		}
		last, err := pgx.CollectExactlyOneRow(rows, pgx.RowToAddrOfStructByName[Message])
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrNoUserMessage
		}
		if err != nil {
			return err
		}
		r, err = removeFrom(ctx, tx, "undo", chatID, last.ConversationID, last.ID, updateID)
		if r != nil {
			r.UserMessage = last
		}
		return err
	})
	if err != nil && !errors.Is(err, ErrNoUserMessage) {
		err = fmt.Errorf("undo: %w", translate(err))
	}
	return r, err
}

// RetryStart is what a regenerated answer starts from.
type RetryStart struct {
	ChatID       int64
	UpdateID     int64 // the /retry command's update; 0 when none
	HistoryLimit int
}

// StartRetry prepares a new answer to the last user message of the chat's
// current conversation: it removes the rows after that message (the old
// answer, its tool calls and results), records the removal, and loads the
// history, in one transaction. A second attempt at the same update finds the
// answer the first attempt stored, if it got that far (Turn.Answer), and
// removes nothing. It returns ErrNoUserMessage when there is nothing to answer.
func (s *Store) StartRetry(ctx context.Context, in RetryStart) (*Turn, error) {
	t := &Turn{}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if in.UpdateID != 0 {
			rows, err := tx.Query(ctx, turnAnswerSQL, in.UpdateID)
			if err != nil {
				return err
			}
			answer, err := pgx.CollectExactlyOneRow(rows, pgx.RowToAddrOfStructByName[Message])
			if err == nil {
				t.ConversationID, t.Answer = answer.ConversationID, answer
				return nil
			}
			if !errors.Is(err, pgx.ErrNoRows) {
				return err
			}
		}
		err := tx.QueryRow(ctx, `SELECT m.conversation_id::text, m.id, c.mode FROM (`+lastUserRowSQL+`) m
			JOIN conversations c ON c.id = m.conversation_id::uuid`, in.ChatID).Scan(&t.ConversationID, &t.UserMessageID, &t.Mode)
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrNoUserMessage
		}
		if err != nil {
			return err
		}
		if _, err := removeFrom(ctx, tx, "retry", in.ChatID, t.ConversationID, t.UserMessageID+1, in.UpdateID); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, lastMessagesQuery("$1", "$2"), t.ConversationID, in.HistoryLimit)
		if err != nil {
			return err
		}
		t.History, err = pgx.CollectRows(rows, pgx.RowToStructByName[Message])
		return err
	})
	if err != nil && !errors.Is(err, ErrNoUserMessage) {
		err = fmt.Errorf("start retry: %w", translate(err))
	}
	return t, err
}

// earlierRollback returns what an earlier attempt at the same update removed,
// or nil when there was none.
func earlierRollback(ctx context.Context, tx pgx.Tx, updateID int64) (*Rollback, error) {
	if updateID == 0 {
		return nil, nil
	}
	r := &Rollback{Repeated: true}
	err := tx.QueryRow(ctx, `SELECT removed, removed_by_role FROM conversation_rollbacks WHERE update_id = $1`,
		updateID).Scan(&r.Removed, &r.ByRole)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	return r, err
}

// removeFrom deletes the conversation's rows from id fromID on and records
// the removal. A second removal for the same update is not recorded again.
func removeFrom(ctx context.Context, tx pgx.Tx, command string, chatID int64, conversationID string, fromID, updateID int64) (*Rollback, error) {
	rows, err := tx.Query(ctx, `DELETE FROM messages WHERE conversation_id = $1 AND id >= $2 RETURNING role`, conversationID, fromID)
	if err != nil {
		return nil, err
	}
	roles, err := pgx.CollectRows(rows, pgx.RowTo[Role])
	if err != nil {
		return nil, err
	}
	r := &Rollback{Removed: len(roles), ByRole: map[Role]int{}}
	for _, role := range roles {
		r.ByRole[role]++
	}
	_, err = tx.Exec(ctx, `INSERT INTO conversation_rollbacks
		(conversation_id, chat_id, command, update_id, first_removed_id, removed, removed_by_role)
		VALUES ($1, $2, $3, NULLIF($4::bigint, 0), $5, $6, $7) ON CONFLICT (update_id) DO NOTHING`,
		conversationID, chatID, command, updateID, fromID, r.Removed, r.ByRole)
	return r, err
}
