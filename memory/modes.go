package memory

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/membot/membot/memory/pg"
)

// Choices keeps what each conversation is answered with, its mode and its
// model, and whether a chat's answers are also spoken (media.go). It is
// safe for concurrent use.
type Choices struct{ base }

// DefaultMode is the mode a conversation starts in (the column's default).
const DefaultMode = "default"

// Why a conversation's mode changed, as mode_switches.reason records it.
const (
	SwitchByCommand = "command" // /mode NAME
	SwitchByButton  = "button"  // the inline button of /mode
	SwitchByNew     = "new"     // /new starts the fresh conversation in the default mode
)

// conversationModeParams are the arguments of conversationMode.
type conversationModeParams struct {
	ChatID      int64  `db:"chat_id"`
	UserID      int64  `db:"telegram_user_id"`
	DefaultMode string `db:"default_mode"`
	ThreadID    int64  `db:"message_thread_id"`
}

// ConversationMode returns the mode of the chat's current conversation,
// creating the conversation when the chat has none.
func (s Choices) ConversationMode(ctx context.Context, chat Chat, userID int64) (string, error) {
	var mode string
	args := pg.Named(conversationModeParams{ChatID: chat.ID, UserID: userID, DefaultMode: DefaultMode, ThreadID: chat.Thread})
	err := s.pool.QueryRow(ctx, conversationModeSQL, args).Scan(&mode)
	if err != nil {
		return "", fmt.Errorf("conversation mode: %w", translate(err))
	}
	return mode, nil
}

// queueMode adds to batch the query of the mode of conversation id,
// scanned into *dst.
func queueMode(batch *pgx.Batch, conversationID string, dst *string) {
	batch.Queue(conversationModeByIDSQL, conversationID).
		QueryRow(func(row pgx.Row) error { return row.Scan(dst) })
}

// switchParams are the arguments of switchMode and switchModel: what the
// conversation switches to, and why.
type switchParams struct {
	ConversationID string `db:"conversation_id"`
	To             string `db:"to"`
	Reason         string `db:"reason"`
	ChatID         int64  `db:"chat_id"`
}

// SwitchMode sets the mode of the chat's current conversation and records
// the switch in mode_switches. It returns the mode it was in before.
func (s Choices) SwitchMode(ctx context.Context, chat Chat, userID int64, to, reason string) (from string, err error) {
	conv, err := s.currentConversation(ctx, chat, userID)
	if err != nil {
		return "", err
	}
	args := pg.Named(switchParams{ConversationID: conv, To: to, Reason: reason, ChatID: chat.ID})
	if err := s.pool.QueryRow(ctx, switchModeSQL, args).Scan(&from); err != nil {
		return "", fmt.Errorf("switch mode: %w", translate(err))
	}
	return from, nil
}

// The statements of this file, whole in sql/modes.sql.
var (
	switchModeSQL           = statement("switchMode")
	conversationModeSQL     = statement("conversationMode")
	conversationModeByIDSQL = statement("conversationModeByID")
)
