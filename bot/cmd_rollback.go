package bot

import (
	"context"
	"errors"

	"github.com/membot/membot/internal/stamp"
	"github.com/membot/membot/memory"
)

// /retry and /undo take rows back out of the conversation (memory logs each
// in conversation_rollbacks): /retry the last answer, to have it written
// again; /undo the last user message and everything after it.

// ControlStore is the memory the conversation controls read and change.
type ControlStore interface {
	Rollback(ctx context.Context, in memory.RollbackStart) (*memory.Rollback, error)
	Dialogue(ctx context.Context, chatID int64, limit int) ([]memory.Message, error)
	WalkCurrentTranscript(ctx context.Context, chatID int64, head func(c memory.Conversation, rows int) error, each func(m *memory.Message) error) error
	ConversationMode(ctx context.Context, chatID, userID int64) (string, error)
	SwitchMode(ctx context.Context, chatID, userID int64, to, reason string) (string, error)
	ModelStore
}

// cmdRetry answers the last user message again, replacing the old answer.
func cmdRetry(ctx context.Context, h *Handler, in *incoming) error {
	if _, err := h.rollback(ctx, in, memory.RollbackRetry); err != nil {
		if errors.Is(err, memory.ErrNoUserMessage) {
			return h.reply(ctx, in, tr(in.lang()).NothingToRetry)
		}
		return err
	}
	delivery, err := h.answer(ctx, in, h.Agent.Regenerate, "")
	in.delivery = delivery
	return err
}

// cmdUndo takes back the last exchange and says what went.
func cmdUndo(ctx context.Context, h *Handler, in *incoming) error {
	r, err := h.rollback(ctx, in, memory.RollbackUndo)
	switch {
	case errors.Is(err, memory.ErrNoUserMessage):
		return h.reply(ctx, in, tr(in.lang()).NothingToUndo)
	case err != nil:
		return err
	case r.Repeated:
		return h.reply(ctx, in, tr(in.lang()).UndoneAgain(r.Removed))
	}
	quote := preview(stamp.Strip(r.UserMessage.Content), 80)
	return h.reply(ctx, in, tr(in.lang()).Undone(quote, r.Shown-1))
}

// rollback takes rows back and the buttons off approvals that no longer wait.
func (h *Handler) rollback(ctx context.Context, in *incoming, command string) (*memory.Rollback, error) {
	r, err := h.Memory.Rollback(ctx, memory.RollbackStart{ChatID: in.msg.Chat.ID, UpdateID: in.update.UpdateID, Command: command})
	if err != nil {
		return nil, err
	}
	for i := range r.Cancelled {
		h.closeApproval(ctx, in.lang(), &r.Cancelled[i])
	}
	return r, nil
}
