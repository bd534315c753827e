package bot

import (
	"context"
	"fmt"
	"time"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/memory/queue"
)

// logTurn writes the one info line of a turn of the model, for an operator
// following the log: the chat, the update, what came of it, how long it
// took and the tokens its model calls took. Never what anyone wrote: the
// errors are logged where the update is given up (bot/inbox).
func (h *Handler) logTurn(ctx context.Context, in *incoming, delivery *queue.Delivery, err error, took time.Duration) {
	outcome := "answered"
	switch {
	case err != nil && (Transient(err) || ctx.Err() != nil):
		outcome = "to be retried"
	case err != nil:
		outcome = "failed"
	case in.paused:
		outcome = "waiting for approval"
	case delivery == nil:
		outcome = "no new answer" // stored (or sent) by an earlier attempt, or nothing to retry
	}
	h.Log.Info("turn", "chat_id", in.msg.Chat.ID, "update_id", in.update.UpdateID, "outcome", outcome,
		"took_ms", took.Milliseconds(), "tokens", in.tokens)
}

// apologise tells the user a turn failed for good: a model server that
// refuses the bot's settings (key, model, URL) is for the admin to fix, so
// the user is asked to tell them; anything else may pass, so they are
// asked to try again.
func (h *Handler) apologise(ctx context.Context, in *incoming, err error) error {
	text, why := tr(in.lang()).Apology, "apology sent"
	if status, ok := agent.Misconfigured(err); ok {
		text = tr(in.lang()).ApologyConfig
		why = fmt.Sprintf("the model server refuses the bot's settings (%d): check OPENAI_API_KEY, OPENAI_MODEL or MODELS, "+
			"and OPENAI_BASE_URL; the user was asked to tell the admin", status)
	}
	if sendErr := h.reply(ctx, in, text); sendErr != nil {
		return sendErr
	}
	return fmt.Errorf("turn failed (%s): %w", why, err)
}
