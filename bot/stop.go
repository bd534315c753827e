package bot

import (
	"context"
	"time"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/memory"
)

// StopStore is where a running turn looks for a request to stop it.
type StopStore interface {
	StopRequested(ctx context.Context, chatID, updateID, draftID int64) (bool, error)
}

// Stopping an answer. The user asks with the Stop button of a draft
// (Telegram sends the bot a stopped_message_generation update), with the
// Stop button of a message being edited (groups, a server without drafts),
// or with /stop anywhere. Each request is an update of the chat, and the chat's
// updates are handled one at a time: it waits in the inbox behind the turn
// it should stop, perhaps stored by another process (webhook replicas). So
// the running turn looks for it there, every StopEvery, with one indexed
// query (memory.Store.StopRequested), and when it is found cancels the
// turn's context with agent.ErrStopped: the model's HTTP request is closed,
// the agent stores what was written (metadata.stopped), and that is what
// the chat is shown. The request itself is handled afterwards and does
// nothing more.

// stoppable returns the context a turn runs with, cancelled with
// agent.ErrStopped when the user asks to stop it; end releases it.
func (h *Handler) stoppable(ctx context.Context, in *incoming) (turnCtx context.Context, end func()) {
	turnCtx, cancel := context.WithCancelCause(ctx)
	every := h.StopEvery
	if every <= 0 {
		every = DefaultStopEvery
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-turnCtx.Done():
				return
			case <-tick.C:
			}
			stop, err := h.Memory.StopRequested(turnCtx, in.msg.Chat.ID, in.update.UpdateID, draftID(in))
			if err != nil && turnCtx.Err() == nil {
				h.Log.Debug("checking for a stop failed", "chat_id", in.msg.Chat.ID, "err", err)
			}
			if stop {
				h.Log.Info("answer stopped by the user", "chat_id", in.msg.Chat.ID, "update_id", in.update.UpdateID)
				cancel(agent.ErrStopped)
				return
			}
		}
	}()
	return turnCtx, func() { cancel(nil); <-done }
}

// pressStop is the Stop button of a message being edited: like /stop, the
// running answer has seen it already.
func pressStop(ctx context.Context, h *Handler, in *incoming, _ string) (*memory.Delivery, error) {
	h.notify(ctx, in, "")
	return nil, nil
}

// cmdStop is /stop: a running answer has seen it already (stoppable), so
// when its turn comes there is nothing left to do.
func cmdStop(context.Context, *Handler, *incoming) error { return nil }
