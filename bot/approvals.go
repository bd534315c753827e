package bot

import (
	"context"
	"errors"
	"strconv"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/bot/approve"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/queue"
)

// ApprovalStore is what the approval buttons and /approvals need.
type ApprovalStore interface {
	approve.Pending
	Approval(ctx context.Context, id int64) (*memory.Approval, error)
	Decide(ctx context.Context, d memory.Decision) (*memory.Approval, bool, error)
	SetApprovalMessage(ctx context.Context, id, telegramMessageID int64) error
	CancelApprovals(ctx context.Context, chat memory.Chat, reason string) ([]memory.Approval, error)
}

// approvals sends and rewrites the messages that ask for approvals.
func (h *Handler) approvals() *approve.Prompts {
	return &approve.Prompts{Client: h.Client, Agent: h.Agent, Store: h.Stores.Approvals, Clock: h.clock, Log: h.Log}
}

// pressed returns the approval a button under it was pressed for (its id
// in arg), or nil when the presser may not press it (they are told): only
// in its own chat, by who asked or an admin.
func (h *Handler) pressed(ctx context.Context, in *incoming, arg string) (*memory.Approval, error) {
	lang := in.lang()
	id, _ := strconv.ParseInt(arg, 10, 64)
	ap, err := h.Stores.Approvals.Approval(ctx, id)
	if errors.Is(err, memory.ErrNotFound) || err == nil && ap.ChatID != in.msg.Chat.ID {
		h.notify(ctx, in, tr(lang).ApprovalUnknown)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if presser := in.user.TelegramUserID; presser != ap.UserID && !h.Access.IsAdmin(presser) {
		h.notify(ctx, in, tr(lang).ApprovalNotYours)
		return nil, nil
	}
	return ap, nil
}

// decide returns the handler of the Approve (or Reject) button: it records
// the decision, if the presser may make it and nobody made it before, and
// then goes on with the turn that waited for it. The press is answered
// before the message is rewritten: the rewrite of an approved call waits,
// right after a start, for the MCP servers to say whether it can run.
func decide(status string) callbackFunc {
	return func(ctx context.Context, h *Handler, in *incoming, arg string) (*queue.Delivery, error) {
		lang := in.lang()
		ap, err := h.pressed(ctx, in, arg)
		if ap == nil || err != nil {
			return nil, err
		}
		if ap.Status == memory.ApprovalPending {
			if ap, _, err = h.Stores.Approvals.Decide(ctx, approve.Decision(ap, status, in.user.TelegramUserID, in.update.UpdateID)); err != nil {
				return nil, err
			}
		}
		switch {
		case ap.Status == memory.ApprovalCancelled:
			h.approvals().Close(ctx, lang, ap)
			h.notify(ctx, in, tr(lang).WasCancelled)
			return nil, nil
		case ap.DecisionUpdateID != in.update.UpdateID: // decided by an earlier press, which rewrote the message
			was := tr(lang).WasRejected
			if ap.Status == memory.ApprovalApproved {
				was = tr(lang).WasApproved
			}
			h.notify(ctx, in, was)
			return nil, nil
		case ap.Status == memory.ApprovalApproved:
			h.notify(ctx, in, tr(lang).Approved)
		default:
			h.notify(ctx, in, tr(lang).Rejected)
		}
		h.approvals().Close(ctx, lang, ap)

		// This update decided it (now, or in an attempt a crash cut short).
		return h.resume(ctx, in, ap)
	}
}

// showWhole handles the ShowWhole button: it sends the call of the
// approval whole, as a file, to the approval's chat, as a reply to it, for
// who may decide it.
func showWhole(ctx context.Context, h *Handler, in *incoming, arg string) (*queue.Delivery, error) {
	ap, err := h.pressed(ctx, in, arg)
	if ap == nil || err != nil {
		return nil, err
	}
	h.notify(ctx, in, "")
	name, data := approve.Whole(*ap)
	_, err = h.Client.SendDocumentData(ctx, in.chat(), int(ap.TelegramMessageID), name, data,
		tr(in.lang()).WholeCall(approve.Label(ap.Subject)))
	return nil, err
}

// resume goes on with the turn that waited for ap, and delivers its answer.
func (h *Handler) resume(ctx context.Context, in *incoming, ap *memory.Approval) (delivery *queue.Delivery, err error) {
	in.turn = true
	stopTyping := h.presenter().Typing(ctx, in.chat(), h.TypingEvery)
	r, err := h.Agent.Resume(ctx, agent.ResumeRequest{Approval: ap, UpdateID: in.update.UpdateID, Thread: in.thread, Lang: in.lang()})
	stopTyping()
	if errors.Is(err, agent.ErrApprovalGone) {
		return nil, h.reply(ctx, in, tr(in.lang()).ApprovalGone)
	}
	if err != nil {
		return nil, h.turnFailed(ctx, in, err)
	}
	return h.deliver(ctx, in, r, nil)
}

// cancelApprovals cancels the chat's pending approvals (for /new) and takes
// their buttons off; it returns how many there were.
func (h *Handler) cancelApprovals(ctx context.Context, lang string, chat memory.Chat) (int, error) {
	cancelled, err := h.Stores.Approvals.CancelApprovals(ctx, chat, "cancelled by /new")
	if err != nil {
		return 0, err
	}
	for i := range cancelled {
		h.approvals().Close(ctx, lang, &cancelled[i])
	}
	return len(cancelled), nil
}
