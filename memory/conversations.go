package memory

import (
	"context"
	"fmt"

	"github.com/membot/membot/memory/pg"
)

// CurrentConversation returns the id of the chat's current conversation,
// creating one when the chat has none.
func (s *Store) CurrentConversation(ctx context.Context, chat Chat, userID int64) (string, error) {
	return s.currentConversation(ctx, chat, userID)
}

// currentConversation is CurrentConversation, for every store of the
// repository.
func (s base) currentConversation(ctx context.Context, chat Chat, userID int64) (string, error) {
	var id string
	if err := s.pool.QueryRow(ctx, currentConversationSQL, chat.ID, userID, chat.Thread).Scan(&id); err != nil {
		return "", fmt.Errorf("current conversation: %w", translate(err))
	}
	return id, nil
}

// resetParams are the arguments of reset.
type resetParams struct {
	ChatID      int64  `db:"chat_id"`
	UserID      int64  `db:"telegram_user_id"`
	DefaultMode string `db:"default_mode"`
	Reason      string `db:"reason"`
	ThreadID    int64  `db:"message_thread_id"`
}

// Reset opens a fresh conversation for the chat and leaves the ones before
// it, with their messages, to purge.Store.PurgeReset, in one statement; it
// returns the new conversation's id. The fresh conversation is the current one at
// once: nothing of the old ones reaches the model again.
func (s *Store) Reset(ctx context.Context, chat Chat, userID int64) (string, error) {
	var id string
	args := pg.Named(resetParams{ChatID: chat.ID, UserID: userID, DefaultMode: DefaultMode, Reason: SwitchByNew, ThreadID: chat.Thread})
	if err := s.pool.QueryRow(ctx, resetSQL, args).Scan(&id); err != nil {
		return "", fmt.Errorf("reset conversation: %w", translate(err))
	}
	return id, nil
}

// The statements of this file, whole in sql/conversations.sql.
var (
	currentConversationSQL = statement("currentConversation")
	resetSQL               = statement("reset")
)
