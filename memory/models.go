package memory

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/membot/membot/memory/pg"
)

// The model of a conversation (/model), like its mode: conversations.model
// ('' is the configured default, NULL in the column), every change recorded
// in model_switches with a reason (SwitchByCommand, SwitchByButton). /new
// carries the model over to the fresh conversation.

// ConversationModel returns the model of the chat's current conversation,
// "" for the default, creating the conversation when the chat has none.
func (s Choices) ConversationModel(ctx context.Context, chat Chat, userID int64) (string, error) {
	var model string
	err := s.pool.QueryRow(ctx, conversationModelSQL, chat.ID, userID, chat.Thread).Scan(&model)
	if err != nil {
		return "", fmt.Errorf("conversation model: %w", translate(err))
	}
	return model, nil
}

// queueModel adds to batch the query of the model of conversation id,
// scanned into *dst.
func queueModel(batch *pgx.Batch, conversationID string, dst *string) {
	batch.Queue(conversationModelByIDSQL, conversationID).
		QueryRow(func(row pgx.Row) error { return row.Scan(dst) })
}

// SwitchModel sets the model of the chat's current conversation ("" for
// the default) and records the switch in model_switches. It returns the
// model it had before.
func (s Choices) SwitchModel(ctx context.Context, chat Chat, userID int64, to, reason string) (from string, err error) {
	conv, err := s.currentConversation(ctx, chat, userID)
	if err != nil {
		return "", err
	}
	args := pg.Named(switchParams{ConversationID: conv, To: cleanText(to), Reason: reason, ChatID: chat.ID})
	if err := s.pool.QueryRow(ctx, switchModelSQL, args).Scan(&from); err != nil {
		return "", fmt.Errorf("switch model: %w", translate(err))
	}
	return from, nil
}

// The statements of this file, whole in sql/models.sql.
var (
	switchModelSQL           = statement("switchModel")
	conversationModelSQL     = statement("conversationModel")
	conversationModelByIDSQL = statement("conversationModelByID")
)
