package bot

import (
	"context"
	"errors"
	"fmt"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/memory"
)

// /retry and /undo take rows back out of the conversation (memory logs each
// in conversation_rollbacks): /retry the last answer, to have it written
// again; /undo the last user message and everything after it.

func init() {
	registerCommand("retry", cmdRetry)
	registerCommand("undo", cmdUndo)
}

// cmdRetry answers the last user message again, replacing the old answer.
func cmdRetry(ctx context.Context, h *Handler, in *incoming) error {
	delivery, err := h.answer(ctx, in, h.Agent.Regenerate, "")
	if err != nil {
		return err
	}
	in.delivery = delivery
	return nil
}

// cmdUndo takes back the last exchange and says what went.
func cmdUndo(ctx context.Context, h *Handler, in *incoming) error {
	r, err := h.Memory.Undo(ctx, in.msg.Chat.ID, in.update.UpdateID)
	switch {
	case errors.Is(err, memory.ErrNoUserMessage):
		return h.reply(ctx, in, T(in.lang(), txtNothingToUndo))
	case err != nil:
		return storageError(err)
	case r.Repeated:
		return h.reply(ctx, in, fmt.Sprintf(T(in.lang(), txtUndoneAgain), r.Removed))
	}
	quote := preview(agent.Unstamp(r.UserMessage.Content), 80)
	return h.reply(ctx, in, fmt.Sprintf(T(in.lang(), txtUndone), quote, r.Removed-1))
}
