package bot

import (
	"context"
	"errors"
	"strings"

	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/internal/stamp"
	"github.com/membot/membot/memory"
)

// /retry and /undo take rows back out of the conversation (memory logs each
// in conversation_rollbacks): /retry the last answer, to have it written
// again; /undo the last user message and everything after it.

// cmdRetry answers the last user message again, replacing the old answer
// and taking back what the old answer's turn set or saved.
func cmdRetry(ctx context.Context, h *Handler, in *incoming) error {
	r, err := h.rollback(ctx, in, memory.RollbackRetry)
	if err != nil {
		if errors.Is(err, memory.ErrNoUserMessage) {
			return h.reply(ctx, in, tr(in.lang()).NothingToRetry)
		}
		return err
	}
	if note := takenBack(in.lang(), r); note != "" {
		if err := h.reply(ctx, in, note); err != nil {
			return err
		}
	}
	delivery, err := h.answer(ctx, in, h.Agent.Regenerate, "")
	in.delivery = delivery
	return err
}

// takenBack says which of the turn's side effects went with it ("" when none).
func takenBack(lang string, r *memory.Rollback) string {
	var parts []string
	if n := len(r.RemindersCancelled); n > 0 {
		parts = append(parts, tr(lang).TakenBackReminders(n, texts.Bullets(r.RemindersCancelled, 80)))
	}
	if n := len(r.FactsRemoved); n > 0 {
		parts = append(parts, tr(lang).TakenBackFacts(n, texts.Bullets(r.FactsRemoved, 80)))
	}
	return strings.Join(parts, "\n")
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
	quote := texts.Preview(stamp.Strip(r.UserMessage.Content), 80)
	text := tr(in.lang()).Undone(quote, r.Shown)
	if note := takenBack(in.lang(), r); note != "" {
		text += "\n" + note
	}
	return h.reply(ctx, in, text)
}

// rollback takes rows back and the buttons off approvals that no longer wait.
func (h *Handler) rollback(ctx context.Context, in *incoming, command string) (*memory.Rollback, error) {
	r, err := h.Stores.Conversations.Rollback(ctx, memory.RollbackStart{Chat: in.conversation(), UpdateID: in.update.UpdateID, Command: command})
	if err != nil {
		return nil, err
	}
	for i := range r.Cancelled {
		h.approvals().Close(ctx, in.lang(), &r.Cancelled[i])
	}
	return r, nil
}
