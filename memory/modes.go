package memory

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// DefaultMode is the mode a conversation starts in (the column's default).
const DefaultMode = "default"

// Why a conversation's mode changed, as mode_switches.reason records it.
const (
	SwitchByCommand = "command" // /mode NAME
	SwitchByButton  = "button"  // the inline button of /mode
	SwitchByNew     = "new"     // /new starts the fresh conversation in the default mode
)

// ConversationMode returns the mode of the chat's current conversation,
// creating the conversation when the chat has none.
func (s *Store) ConversationMode(ctx context.Context, chat Chat, userID int64) (string, error) {
	var mode string
	err := s.pool.QueryRow(ctx, conversationModeSQL, chat.ID, userID, DefaultMode, chat.Thread).Scan(&mode)
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

// SwitchMode sets the mode of the chat's current conversation and records
// the switch in mode_switches. It returns the mode it was in before.
func (s *Store) SwitchMode(ctx context.Context, chat Chat, userID int64, to, reason string) (from string, err error) {
	conv, err := s.CurrentConversation(ctx, chat, userID)
	if err != nil {
		return "", err
	}
	if err := s.pool.QueryRow(ctx, switchModeSQL, conv, to, reason, chat.ID).Scan(&from); err != nil {
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
