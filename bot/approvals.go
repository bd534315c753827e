package bot

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/queue"
)

// ApprovalStore is what the approval buttons and /approvals need.
type ApprovalStore interface {
	Approval(ctx context.Context, id int64) (*memory.Approval, error)
	Decide(ctx context.Context, d memory.Decision) (*memory.Approval, bool, error)
	SetApprovalMessage(ctx context.Context, id, telegramMessageID int64) error
	ChatApprovals(ctx context.Context, chat memory.Chat) ([]memory.Approval, error)
	CancelApprovals(ctx context.Context, chat memory.Chat, reason string) ([]memory.Approval, error)
}

// askApproval sends the buttons of each approval that has none yet, and
// records where they are.
func (h *Handler) askApproval(ctx context.Context, in *incoming, approvals []memory.Approval) error {
	lang := in.lang()
	for _, ap := range approvals {
		if ap.TelegramMessageID != 0 {
			continue // sent by an earlier attempt
		}
		desc, buttons := h.approvalPrompt(lang, ap)
		text := tr(lang).ApprovalAsk(toolLabel(ap.Subject), desc)
		if len(buttons) == 1 {
			text = desc // it cannot be approved, only rejected
		}
		id, err := h.Client.SendMessage(ctx, telegram.SendMessageParams{Chat: in.chat(), ReplyTo: replyTo(in), Text: text, Buttons: [][]telegram.Button{buttons}})
		if err != nil {
			return err
		}
		if err := h.Memory.SetApprovalMessage(ctx, ap.ID, id); err != nil {
			return err
		}
	}
	return nil
}

// decide returns the handler of the Approve (or Reject) button: it records
// the decision, if the presser may make it and nobody made it before, and
// then goes on with the turn that waited for it.
func decide(status string) callbackFunc {
	return func(ctx context.Context, h *Handler, in *incoming, arg string) (*queue.Delivery, error) {
		lang := in.lang()
		id, _ := strconv.ParseInt(arg, 10, 64)
		ap, err := h.Memory.Approval(ctx, id)
		if errors.Is(err, memory.ErrNotFound) || err == nil && ap.ChatID != in.msg.Chat.ID {
			h.notify(ctx, in, tr(lang).ApprovalUnknown)
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		presser := in.user.TelegramUserID
		if presser != ap.UserID && !h.Access.IsAdmin(presser) {
			h.notify(ctx, in, tr(lang).ApprovalNotYours)
			return nil, nil
		}
		if ap.Status == memory.ApprovalPending {
			if ap, _, err = h.Memory.Decide(ctx, decision(ap, status, presser, in.update.UpdateID)); err != nil {
				return nil, err
			}
		}
		h.closeApproval(ctx, lang, ap)
		switch {
		case ap.Status == memory.ApprovalCancelled:
			h.notify(ctx, in, tr(lang).WasCancelled)
			return nil, nil
		case ap.DecisionUpdateID != in.update.UpdateID: // decided by an earlier press
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

		// This update decided it (now, or in an attempt a crash cut short).
		return h.resume(ctx, in, ap)
	}
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

// decision is what pressing a button on ap decides. A request whose
// conversation no longer holds it can only be cancelled.
func decision(ap *memory.Approval, status string, presser, updateID int64) memory.Decision {
	d := memory.Decision{ApprovalID: ap.ID, Status: status, DecidedBy: presser, UpdateID: updateID,
		Reason: status + " by the user"}
	if presser != ap.UserID {
		d.Reason = status + " by an admin"
	}
	if ap.ConversationID == "" || ap.AssistantMessageID == 0 {
		d.Status, d.Reason = memory.ApprovalCancelled, "the conversation no longer holds the request"
	}
	return d
}

// closeApproval rewrites a decided approval's message: the same call,
// with what was decided and when in place of the question, and no buttons
// (an edit without them takes them off). Where the edit fails, the buttons
// are taken off at least; a failure of that only leaves buttons that now
// do nothing.
func (h *Handler) closeApproval(ctx context.Context, lang string, ap *memory.Approval) {
	if ap.TelegramMessageID == 0 {
		return
	}
	t := tr(lang)
	at := time.Now()
	if ap.DecisionAt != nil {
		at = *ap.DecisionAt
	}
	outcome := t.OutcomeCancelled
	switch ap.Status {
	case memory.ApprovalPending:
		return
	case memory.ApprovalApproved:
		outcome = t.OutcomeApproved(h.clock(at))
	case memory.ApprovalRejected:
		outcome = t.OutcomeRejected(h.clock(at))
	}
	desc, _ := h.approvalPrompt(lang, *ap)
	err := h.Client.EditMessageText(ctx, telegram.EditMessageTextParams{ChatID: ap.ChatID, MessageID: ap.TelegramMessageID, Text: t.ApprovalClosed(toolLabel(ap.Subject), desc, outcome)})
	if err != nil {
		h.Log.Debug("rewriting a decided approval failed; taking its buttons off", "approval_id", ap.ID, "err", err)
		err = h.Client.RemoveButtons(ctx, ap.ChatID, ap.TelegramMessageID)
	}
	if err != nil {
		h.Log.Debug("removing approval buttons failed", "approval_id", ap.ID, "err", err)
	}
}

// cmdApprovals lists the chat's pending approvals, with buttons to decide them.
func cmdApprovals(ctx context.Context, h *Handler, in *incoming) error {
	list, err := h.Memory.ChatApprovals(ctx, in.conversation())
	if err != nil {
		return err
	}
	owner, err := h.ownRowsOnly(ctx, in)
	if err != nil {
		return err
	}
	if owner != 0 { // a member of a group sees only what they asked for
		list = slices.DeleteFunc(list, func(ap memory.Approval) bool { return ap.UserID != owner })
	}
	lang := in.lang()
	if len(list) == 0 {
		return h.reply(ctx, in, tr(lang).ApprovalsNone)
	}
	list = list[:min(len(list), 20)]
	var b strings.Builder
	b.WriteString(tr(lang).ApprovalsList)
	var rows [][]telegram.Button
	for i, ap := range list {
		n := strconv.Itoa(i + 1)
		desc, buttons := h.approvalPrompt(lang, ap)
		fmt.Fprintf(&b, "\n\n%s. %s\n%s\n(%s)", n, toolLabel(ap.Subject), desc, h.clock(ap.CreatedAt))
		for j := range buttons {
			buttons[j].Text = buttons[j].Text[:strings.IndexByte(buttons[j].Text, ' ')] + " " + n
		}
		rows = append(rows, buttons)
	}
	_, err = h.Client.SendMessage(ctx, telegram.SendMessageParams{Chat: in.chat(), ReplyTo: replyTo(in), Text: b.String(), Buttons: rows})
	return err
}

// cancelApprovals cancels the chat's pending approvals (for /new) and takes
// their buttons off; it returns how many there were.
func (h *Handler) cancelApprovals(ctx context.Context, lang string, chat memory.Chat) (int, error) {
	cancelled, err := h.Memory.CancelApprovals(ctx, chat, "cancelled by /new")
	if err != nil {
		return 0, err
	}
	for i := range cancelled {
		h.closeApproval(ctx, lang, &cancelled[i])
	}
	return len(cancelled), nil
}

// toolLabel is a tool's or an MCP server's name as the bot shows it: an
// MCP server names its tools itself.
func toolLabel(name string) string { return texts.Label(name, 64) }

// approvalPrompt is what a person deciding on ap is shown of the call, and
// its buttons: the call as the tool describes it, whole (the agent refuses
// a call it cannot show whole before anyone is asked). A call that cannot
// be shown (stored before that check) is said to be so, and can only be
// rejected.
func (h *Handler) approvalPrompt(lang string, ap memory.Approval) (string, []telegram.Button) {
	id := strconv.FormatInt(ap.ID, 10)
	reject := telegram.Button{Text: tr(lang).Reject, Data: "reject:" + id}
	desc, err := h.Agent.DescribeCall(ap.Subject, ap.Details)
	if err != nil {
		return tr(lang).ApprovalUnreadable(toolLabel(ap.Subject), err.Error()), []telegram.Button{reject}
	}
	for _, tool := range h.Agent.Tools() {
		if tool.Name == ap.Subject && tool.Server != "" {
			desc = tr(lang).ToolOrigin(toolLabel(tool.Server), toolLabel(tool.ServerTool)) + "\n" + desc
		}
	}
	return desc, []telegram.Button{{Text: tr(lang).Approve, Data: "approve:" + id}, reject}
}
