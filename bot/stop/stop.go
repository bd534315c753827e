// Package stop watches a running answer for requests to stop it. The user
// asks with the Stop button of a draft (Telegram sends the bot a
// stopped_message_generation update), with the Stop button of a message
// being edited (groups, a server without drafts), or with /stop anywhere.
// Each request is an update of the chat, and the chat's updates are
// handled one at a time: it waits in the inbox behind the turn it should
// stop, perhaps stored by another process (webhook replicas). So the
// running turn looks for it there, every Every, with one indexed query
// (queue.Store.StopRequests), and when one comes from someone who may stop
// the answer (May) cancels the turn's context with agent.ErrStopped: the
// model's HTTP request is closed, the agent stores what was written
// (metadata.stopped), and that is what the chat is shown. The request
// itself is handled afterwards and does nothing more.
package stop

import (
	"context"
	"log/slog"
	"time"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/memory/queue"
)

// Requests is where a running turn looks for requests to stop it.
type Requests interface {
	StopRequests(ctx context.Context, chatID, updateID, draftID, after int64) ([]queue.StopRequest, error)
}

// Watch is one running answer's watch: the answer to update UpdateID of
// chat ChatID, whose draft (if any) is DraftID.
type Watch struct {
	Requests Requests
	Every    time.Duration // how often it looks
	ChatID   int64
	UpdateID int64
	DraftID  int64
	// May tells whether userID may stop the answer.
	May func(ctx context.Context, userID int64) (bool, error)
	Log *slog.Logger
}

// Start returns the context a turn runs with, cancelled with
// agent.ErrStopped when someone who May asks to stop it; end releases it.
func (w Watch) Start(ctx context.Context) (turnCtx context.Context, end func()) {
	turnCtx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(w.Every)
		defer tick.Stop()
		after := w.UpdateID // the requests up to here were not for this answer's stopping
		for {
			select {
			case <-turnCtx.Done():
				return
			case <-tick.C:
			}
			by, seen, err := w.requested(turnCtx, after)
			after = seen
			if err != nil && turnCtx.Err() == nil {
				w.Log.Debug("checking for a stop failed", "chat_id", w.ChatID, "err", err)
			}
			if by != 0 {
				w.Log.Info("answer stopped", "chat_id", w.ChatID, "update_id", w.UpdateID, "by", by)
				cancel(agent.ErrStopped)
				return
			}
		}
	}()
	return turnCtx, func() { cancel(nil); <-done }
}

// requested looks at the requests to stop the answer that came after
// update after, and returns who asked when one may stop it (0 when none
// may) and the last request decided, so that the next look starts past it.
func (w Watch) requested(ctx context.Context, after int64) (by, seen int64, err error) {
	reqs, err := w.Requests.StopRequests(ctx, w.ChatID, w.UpdateID, w.DraftID, after)
	if err != nil {
		return 0, after, err
	}
	for _, r := range reqs {
		may, err := w.May(ctx, r.UserID)
		if err != nil {
			return 0, after, err // this one is decided again next time
		}
		if may {
			return r.UserID, r.UpdateID, nil
		}
		w.Log.Info("a request to stop the answer is ignored: not from who asked or an admin", "chat_id", w.ChatID,
			"update_id", w.UpdateID, "request", r.UpdateID, "user_id", r.UserID)
		after = r.UpdateID
	}
	return 0, after, nil
}
