package memory

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/membot/membot/memory/pg"
)

// ErrNoUserMessage is returned by Rollback and StartRetry when the chat's
// current conversation has no user message to take back or to answer again.
var ErrNoUserMessage = errors.New("the conversation has no user message")

// The commands that take rows back out of a conversation.
const (
	RollbackUndo  = "undo"  // the last user message and everything after it
	RollbackRetry = "retry" // everything after the last user message
)

// RollbackStart says what to take back.
type RollbackStart struct {
	Chat     Chat
	UpdateID int64  // the command's update; 0 when none
	Command  string // RollbackUndo or RollbackRetry
}

// Rollback is what /undo or /retry took out of a conversation.
type Rollback struct {
	// UserMessage is the last user message: taken back by /undo, answered
	// again by /retry. Nil when Repeated.
	UserMessage *Message
	Removed     int          // rows removed
	ByRole      map[Role]int // the same, per role
	// Shown is how many of them people read in the chat: user messages
	// and the bot's answers, not tool calls, results or system notes.
	Shown int
	// Cancelled are the approvals that waited on a removed tool call.
	Cancelled []Approval
	// The turn's side effects taken back with it: the texts of the
	// reminders it set that were still waiting (now cancelled), and of the
	// facts it saved (now deleted). A fact it only refreshed or edited,
	// which was there before, stays.
	RemindersCancelled []string
	FactsRemoved       []string
	// Repeated is true when an earlier attempt at the same update (cut
	// short by a crash) had already done it: nothing more was removed.
	Repeated bool
}

// Rollback takes rows back out of the chat's current conversation, in one
// transaction: for /undo its last user message and every row after it, for
// /retry the rows after that message (the old answer, its tool calls and
// results). Approvals waiting on a removed call are cancelled, and the
// removal is logged in conversation_rollbacks. A second attempt at the same
// update removes nothing more and says so (Repeated). It returns
// ErrNoUserMessage when the conversation has no user message.
func (s *Store) Rollback(ctx context.Context, in RollbackStart) (*Rollback, error) {
	var r *Rollback
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		if r, err = earlierRollback(ctx, tx, in.UpdateID); r != nil || err != nil {
			return err
		}
		rows, err := tx.Query(ctx, lastUserRowSQL, in.Chat.ID, in.Chat.Thread)
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
		from := last.ID // undo
		if in.Command == RollbackRetry {
			from = last.ID + 1
		}
		cancelled, err := collectApprovals(tx.Query(ctx, cancelRemovedApprovalsSQL, last.ConversationID, from, "cancelled by /"+in.Command))
		if err != nil {
			return err
		}
		reminders, facts, err := takeBackSideEffects(ctx, tx, last)
		if err != nil {
			return err
		}
		if r, err = removeFrom(ctx, tx, in, last.ConversationID, from); err != nil {
			return err
		}
		r.UserMessage, r.Cancelled = last, cancelled
		r.RemindersCancelled, r.FactsRemoved = reminders, facts
		return nil
	})
	if err != nil && !errors.Is(err, ErrNoUserMessage) {
		err = fmt.Errorf("%s: %w", in.Command, translate(err))
	}
	return r, err
}

// takeBackSideEffects cancels the waiting reminders and deletes the facts
// that the turn of user message last made (their source_message_id), before
// that message or its answer goes. A fact the turn only said again keeps
// the source that first said it, and stays; one it superseded is current
// again (superseded_by is set null with the deleted row).
func takeBackSideEffects(ctx context.Context, tx pgx.Tx, last *Message) (reminders, facts []string, err error) {
	rows, err := tx.Query(ctx, cancelTurnRemindersSQL, last.ID)
	if err != nil {
		return nil, nil, err
	}
	if reminders, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		return nil, nil, err
	}
	rows, err = tx.Query(ctx, deleteTurnFactsSQL, last.ID)
	if err != nil {
		return nil, nil, err
	}
	facts, err = pgx.CollectRows(rows, pgx.RowTo[string])
	return reminders, facts, err
}

// earlierRollback returns what an earlier attempt at the same update
// removed, or nil when there was none.
func earlierRollback(ctx context.Context, tx pgx.Tx, updateID int64) (*Rollback, error) {
	if updateID == 0 {
		return nil, nil
	}
	r := &Rollback{Repeated: true}
	err := tx.QueryRow(ctx, earlierRollbackSQL,
		updateID).Scan(&r.Removed, &r.ByRole)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	return r, err
}

// removeFrom deletes the conversation's rows from id fromID on and logs the
// removal.
func removeFrom(ctx context.Context, tx pgx.Tx, in RollbackStart, conversationID string, fromID int64) (*Rollback, error) {
	rows, err := tx.Query(ctx, removeRowsSQL, conversationID, fromID)
	if err != nil {
		return nil, err
	}
	type removed struct {
		Role  Role
		Shown bool
	}
	gone, err := pgx.CollectRows(rows, pgx.RowToStructByPos[removed])
	if err != nil {
		return nil, err
	}
	r := &Rollback{Removed: len(gone), ByRole: map[Role]int{}}
	for _, g := range gone {
		r.ByRole[g.Role]++
		if g.Shown {
			r.Shown++
		}
	}
	_, err = tx.Exec(ctx, logRollbackSQL, pg.Named(logRollbackParams{
		ConversationID: conversationID, ChatID: in.Chat.ID, Command: in.Command, UpdateID: in.UpdateID,
		FirstRemovedID: fromID, Removed: r.Removed, RemovedByRole: r.ByRole,
	}))
	return r, err
}

// logRollbackParams are the arguments of logRollback.
type logRollbackParams struct {
	ConversationID string       `db:"conversation_id"`
	ChatID         int64        `db:"chat_id"`
	Command        string       `db:"command"`
	UpdateID       int64        `db:"update_id"`
	FirstRemovedID int64        `db:"first_removed_id"`
	Removed        int          `db:"removed"`
	RemovedByRole  map[Role]int `db:"removed_by_role"`
}

// RetryStart is what a regenerated answer starts from.
type RetryStart struct {
	Chat         Chat
	UserID       int64 // who asked: their long-term facts are loaded
	UpdateID     int64 // the /retry command's update; 0 when none
	HistoryLimit int
	FactChars    int
	// RecallLimit, when not 0, recalls the rows older than the window that
	// best match the user row (auto-recall, full-text alone), as a turn
	// does (Turn.Recalled).
	RecallLimit int
}

// StartRetry loads what a new answer to the last user message of the chat's
// current conversation starts from (Rollback has removed the old one), in
// one round trip: the history, the conversation's mode, the user's facts,
// the chat's pending approvals and the answer an earlier attempt at the
// same update already stored (Turn.Answer). It returns ErrNoUserMessage when
// the conversation has no user message.
func (s *Store) StartRetry(ctx context.Context, in RetryStart) (*Turn, error) {
	t := &Turn{}
	found := true
	batch := &pgx.Batch{}
	batch.Queue(retryUserRowSQL, in.Chat.ID, in.Chat.Thread).QueryRow(func(row pgx.Row) error {
		err := row.Scan(&t.ConversationID, &t.UserMessageID, &t.Mode, &t.Model)
		if errors.Is(err, pgx.ErrNoRows) {
			found = false
			return nil
		}
		return err
	})
	batch.Queue(retryHistorySQL, in.Chat.ID, in.HistoryLimit, in.Chat.Thread).Query(func(rows pgx.Rows) error {
		var err error
		t.History, err = pgx.CollectRows(rows, pgx.RowToStructByName[Message])
		for i := range t.History {
			t.History[i].ReadOrigin()
		}
		return err
	})
	queueAnswer(batch, in.UpdateID, &t.Answer)
	queueFacts(batch, in.UserID, in.FactChars, t)
	queueApprovals(batch, &t.Approvals, turnApprovalsSQL, in.Chat.ID, in.UpdateID)
	queueSummary(batch, retrySummarySQL, &t.Summary, in.Chat.ID, in.Chat.Thread)
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return nil, fmt.Errorf("start retry: %w", translate(err))
	}
	if !found {
		return nil, ErrNoUserMessage
	}
	if in.RecallLimit > 0 && t.Answer == nil {
		var err error
		t.Recalled, err = s.recallRow(ctx, t.UserMessageID, in.HistoryLimit, in.RecallLimit)
		if err == nil && len(t.Recalled) > 0 {
			t.Recalled, err = s.inContext(ctx, t.ConversationID, windowFrom(t), t.Recalled, Recall{Limit: in.RecallLimit}.budget())
		}
		if err != nil {
			return nil, fmt.Errorf("start retry: %w", translate(err))
		}
	}
	return t, nil
}

// The statements of this file, whole in sql/rollback.sql.
var (
	lastUserRowSQL            = statement("lastUserRow")
	cancelRemovedApprovalsSQL = statement("cancelRemovedApprovals")
	retryUserRowSQL           = statement("retryUserRow")
	retryHistorySQL           = statement("retryHistory")
	retrySummarySQL           = statement("retrySummary")
	cancelTurnRemindersSQL    = statement("cancelTurnReminders")
	deleteTurnFactsSQL        = statement("deleteTurnFacts")
	earlierRollbackSQL        = statement("earlierRollback")
	removeRowsSQL             = statement("removeRows")
	logRollbackSQL            = statement("logRollback")
)
