package bot

import (
	"context"

	"github.com/membot/membot/bot/stop"
	"github.com/membot/membot/memory/queue"
)

// stoppable returns the context a turn runs with, cancelled with
// agent.ErrStopped when someone who may (mayStop) asks to stop it
// (bot/stop); end releases it.
func (h *Handler) stoppable(ctx context.Context, in *incoming) (turnCtx context.Context, end func()) {
	every := h.StopEvery
	if every <= 0 {
		every = DefaultStopEvery
	}
	may := func(ctx context.Context, userID int64) (bool, error) { return h.mayStop(ctx, in, userID) }
	return stop.Watch{Requests: h.Stores.Inbox, Every: every, ChatID: in.msg.Chat.ID, UpdateID: in.update.UpdateID,
		DraftID: draftID(in), May: may, Log: h.Log}.Start(ctx)
}

// mayStop is the gate's rule for stopping an answer: the user must be let
// in (gate.Gate.LetIn) and be who asked for the answer, one of the bot's
// admins, or an admin of the group. Anyone else's /stop or press of Stop
// does nothing to it.
func (h *Handler) mayStop(ctx context.Context, in *incoming, userID int64) (bool, error) {
	chat := in.msg.Chat
	if ok, err := h.gate().LetIn(ctx, userID, chat.ID, chat.IsPrivate()); !ok {
		return false, err
	}
	switch {
	case userID == in.user.TelegramUserID || h.Access.IsAdmin(userID):
		return true, nil
	case chat.IsPrivate():
		return false, nil
	}
	return h.gate().ChatAdmin(ctx, chat.ID, userID)
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
