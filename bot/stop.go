package bot

import (
	"context"
	"time"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/memory/queue"
)

// StopStore is where a running turn looks for requests to stop it.
type StopStore interface {
	StopRequests(ctx context.Context, chatID, updateID, draftID, after int64) ([]queue.StopRequest, error)
}

// Stopping an answer. The user asks with the Stop button of a draft
// (Telegram sends the bot a stopped_message_generation update), with the
// Stop button of a message being edited (groups, a server without drafts),
// or with /stop anywhere. Each request is an update of the chat, and the chat's
// updates are handled one at a time: it waits in the inbox behind the turn
// it should stop, perhaps stored by another process (webhook replicas). So
// the running turn looks for it there, every StopEvery, with one indexed
// query (queue.Store.StopRequests), and when one comes from someone who
// may stop the answer (mayStop) cancels the turn's context with
// agent.ErrStopped: the model's HTTP request is closed,
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
		after := in.update.UpdateID // the requests up to here were not for this answer's stopping
		for {
			select {
			case <-turnCtx.Done():
				return
			case <-tick.C:
			}
			by, seen, err := h.stopRequested(turnCtx, in, after)
			after = seen
			if err != nil && turnCtx.Err() == nil {
				h.Log.Debug("checking for a stop failed", "chat_id", in.msg.Chat.ID, "err", err)
			}
			if by != 0 {
				h.Log.Info("answer stopped", "chat_id", in.msg.Chat.ID, "update_id", in.update.UpdateID, "by", by)
				cancel(agent.ErrStopped)
				return
			}
		}
	}()
	return turnCtx, func() { cancel(nil); <-done }
}

// stopRequested looks at the requests to stop in's answer that came after
// update after, and returns who asked when one may stop it (0 when none
// may) and the last request decided, so that the next look starts past it.
func (h *Handler) stopRequested(ctx context.Context, in *incoming, after int64) (by, seen int64, err error) {
	reqs, err := h.Inbox.StopRequests(ctx, in.msg.Chat.ID, in.update.UpdateID, draftID(in), after)
	if err != nil {
		return 0, after, err
	}
	for _, r := range reqs {
		may, err := h.mayStop(ctx, in, r.UserID)
		if err != nil {
			return 0, after, err // this one is decided again next time
		}
		if may {
			return r.UserID, r.UpdateID, nil
		}
		h.Log.Info("a request to stop the answer is ignored: not from who asked or an admin", "chat_id", in.msg.Chat.ID,
			"update_id", in.update.UpdateID, "request", r.UpdateID, "user_id", r.UserID)
		after = r.UpdateID
	}
	return 0, after, nil
}

// mayStop is the gate's rule for stopping an answer: the user must be let
// in (access.Policy.Allows) and be who asked for the answer, one of the bot's
// admins, or an admin of the group. Anyone else's /stop or press of Stop
// does nothing to it.
func (h *Handler) mayStop(ctx context.Context, in *incoming, userID int64) (bool, error) {
	chat := in.msg.Chat
	switch {
	case !h.Access.Allows(userID, chat.ID):
		return false, nil
	case userID == in.user.TelegramUserID || h.Access.IsAdmin(userID):
		return true, nil
	case chat.IsPrivate():
		return false, nil
	}
	return h.chatAdmin(ctx, chat.ID, userID)
}

// pressStop is the Stop button of a message being edited: like /stop, the
// running answer has seen it already.
func pressStop(ctx context.Context, h *Handler, in *incoming, _ string) (*queue.Delivery, error) {
	h.notify(ctx, in, "")
	return nil, nil
}

// cmdStop is /stop: a running answer has seen it already (stoppable), so
// when its turn comes there is nothing left to do.
func cmdStop(context.Context, *Handler, *incoming) error { return nil }
