// Package approve shows the tool calls that wait for a person's decision:
// each call's prompt with its buttons (Approve, Reject), the message
// rewritten with the outcome once decided, a chat's pending calls listed
// (/approvals), and what a press decides (Decision). bot routes the
// presses, records the decisions and goes on with the turn.
package approve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/bot/command"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/internal/visible"
	"github.com/membot/membot/memory"
)

// Agent describes the calls that wait (agent.Agent).
type Agent interface {
	// DescribeCall says what a call waiting for approval will do in its
	// tool's words, or "": it is shown by its arguments.
	DescribeCall(name, arguments string) (string, error)
	// CannotRun says why an approved call cannot run now, or nil.
	CannotRun(ctx context.Context, ap memory.Approval) error
	// Tools are the tools the model is offered now.
	Tools() []agent.Tool
}

// Store records which Telegram message shows an approval's buttons.
type Store interface {
	SetApprovalMessage(ctx context.Context, id, telegramMessageID int64) error
}

// Prompts sends and rewrites the messages that ask for approvals.
type Prompts struct {
	Client *telegram.Client
	Agent  Agent
	Store  Store
	Clock  func(time.Time) string // a time as the bot shows it
	Log    *slog.Logger
}

// Ask sends the buttons of each approval that has none yet, and records
// where they are. outside is where the text the user did not write, that
// the request follows, came from: each prompt says so first.
func (p *Prompts) Ask(ctx context.Context, chat telegram.Chat, replyTo int, lang string, approvals []memory.Approval, outside []agent.Source) error {
	for _, ap := range approvals {
		if ap.TelegramMessageID != 0 {
			continue // sent by an earlier attempt
		}
		desc, buttons := p.Prompt(lang, ap)
		text := texts.For(lang).ApprovalAsk(Label(ap.Subject), desc)
		if !strings.HasPrefix(buttons[0].Data, "approve:") {
			text = desc // it cannot be approved, only rejected
		}
		if because := Follows(lang, outside); because != "" {
			text = because + "\n\n" + text
		}
		id, err := p.Client.SendMessage(ctx, telegram.SendMessageParams{Chat: chat, ReplyTo: replyTo, Text: text, Buttons: [][]telegram.Button{buttons}})
		if err != nil {
			return err
		}
		if err := p.Store.SetApprovalMessage(ctx, ap.ID, id); err != nil {
			return err
		}
	}
	return nil
}

// Decision is what pressing a button on ap decides. A request whose
// conversation no longer holds it can only be cancelled.
func Decision(ap *memory.Approval, status string, presser, updateID int64) memory.Decision {
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

// Close rewrites a decided approval's message: the same call, with what
// was decided and when in place of the question, and no buttons but
// ShowWhole's (an edit without them takes them off). An approved call
// that cannot run (its tool is gone; right after a start this waits for
// the MCP servers) is said not to run, not to be approved. Where the edit
// fails, the buttons are taken off at least; a failure of that only
// leaves buttons that now do nothing.
func (p *Prompts) Close(ctx context.Context, lang string, ap *memory.Approval) {
	if ap.TelegramMessageID == 0 {
		return
	}
	t := texts.For(lang)
	at := time.Now()
	if ap.DecisionAt != nil {
		at = *ap.DecisionAt
	}
	outcome := t.OutcomeCancelled
	switch ap.Status {
	case memory.ApprovalPending:
		return
	case memory.ApprovalApproved:
		outcome = t.OutcomeApproved(p.Clock(at))
		if err := p.Agent.CannotRun(ctx, *ap); err != nil {
			outcome = t.OutcomeNotRun(notRun(t, ap.Subject, err))
			p.Log.Info("an approved call cannot run", "approval_id", ap.ID, "tool", ap.Subject, "err", err)
		}
	case memory.ApprovalRejected:
		outcome = t.OutcomeRejected(p.Clock(at))
	}
	desc, buttons := p.Prompt(lang, *ap)
	var rows [][]telegram.Button
	if whole := buttons[len(buttons)-1]; strings.HasPrefix(whole.Data, WholePrefix+":") {
		rows = [][]telegram.Button{{whole}}
	}
	err := p.Client.EditMessageText(ctx, telegram.EditMessageTextParams{ChatID: ap.ChatID, MessageID: ap.TelegramMessageID,
		Text: t.ApprovalClosed(Label(ap.Subject), desc, outcome), Buttons: rows})
	if err != nil {
		p.Log.Debug("rewriting a decided approval failed; taking its buttons off", "approval_id", ap.ID, "err", err)
		err = p.Client.RemoveButtons(ctx, ap.ChatID, ap.TelegramMessageID)
	}
	if err != nil {
		p.Log.Debug("removing approval buttons failed", "approval_id", ap.ID, "err", err)
	}
}

// notRun says in words why an approved call of tool cannot run (err,
// from Agent.CannotRun, goes to the log only).
func notRun(t *texts.Texts, tool string, err error) string {
	switch {
	case errors.Is(err, agent.ErrToolNotOffered):
		return t.ToolNotOffered(Label(tool))
	case errors.Is(err, agent.ErrBadArguments):
		return t.ArgumentsBroken
	}
	return t.CannotRunNow
}

// MaxListed bounds the approvals List shows at once.
const MaxListed = 20

// Listing is the pending approvals of list (at most MaxListed),
// numbered, with buttons to decide each: one message shows them all.
func (p *Prompts) Listing(lang string, list []memory.Approval) (string, [][]telegram.Button) {
	list = list[:min(len(list), MaxListed)]
	var b strings.Builder
	b.WriteString(texts.For(lang).ApprovalsList)
	var rows [][]telegram.Button
	budget := max((maxShown-100*len(list))/max(len(list), 1), 60)
	for i, ap := range list {
		n := strconv.Itoa(i + 1)
		desc, buttons := p.prompt(lang, ap, budget)
		fmt.Fprintf(&b, "\n\n%s. %s\n%s\n(%s)", n, Label(ap.Subject), desc, p.Clock(ap.CreatedAt))
		for j := range buttons {
			buttons[j].Text = buttons[j].Text[:strings.IndexByte(buttons[j].Text, ' ')] + " " + n
		}
		rows = append(rows, buttons)
	}
	return b.String(), rows
}

// Pending reads a chat's pending approvals (memory.Approvals).
type Pending interface {
	ChatApprovals(ctx context.Context, chat memory.Chat) ([]memory.Approval, error)
}

// Commands are /approvals: the chat's pending approvals listed with
// buttons to decide them (a group's member sees their own only).
type Commands struct {
	Store   Pending
	Prompts *Prompts
}

// Approvals lists the chat's pending approvals, with buttons to decide them.
func (a Commands) Approvals(ctx context.Context, c command.Call) error {
	list, err := a.Store.ChatApprovals(ctx, c.Chat)
	if err != nil {
		return err
	}
	owner, err := c.OwnRows(ctx)
	if err != nil {
		return err
	}
	if owner != 0 { // a member of a group sees only what they asked for
		list = slices.DeleteFunc(list, func(ap memory.Approval) bool { return ap.UserID != owner })
	}
	if len(list) == 0 {
		return c.Reply(ctx, texts.For(c.Lang()).ApprovalsNone)
	}
	text, rows := a.Prompts.Listing(c.Lang(), list)
	return c.Reply(ctx, text, rows...)
}

// Label is a tool's or an MCP server's name as the bot shows it: an MCP
// server names its tools itself.
func Label(name string) string { return texts.Label(name, 64) }

// WholePrefix begins the data of the button that sends a call whole.
const WholePrefix = "whole"

// The bounds of what a prompt shows of a call: each argument's value (or
// line of the tool's own description), and all of them together. What is
// cut is said, and the ShowWhole button sends the call whole.
const (
	maxShownValue = 300
	maxShownLine  = 1000
	maxShown      = 3000
)

// Prompt is what a person deciding on ap is shown of the call, and its
// buttons. The call is shown from the arguments stored with ap, exactly
// those that run, whether or not its tool is offered now: in the tool's
// own words when it has them (agent.Tool.Describe), else each argument's
// key and value. Every character that cannot be seen or that could change
// how the text reads is shown escaped (visible.Escaped), a newline included,
// so a value cannot pass for the question; a long value is cut with how
// many characters are left out, and the ShowWhole button (third) sends
// the call whole. Arguments that cannot be read (never stored since the
// check) are said to be so, and can only be rejected.
func (p *Prompts) Prompt(lang string, ap memory.Approval) (string, []telegram.Button) {
	return p.prompt(lang, ap, maxShown)
}

// prompt is Prompt within budget UTF-16 units.
func (p *Prompts) prompt(lang string, ap memory.Approval, budget int) (string, []telegram.Button) {
	t := texts.For(lang)
	id := strconv.FormatInt(ap.ID, 10)
	reject := telegram.Button{Text: t.Reject, Data: "reject:" + id}
	desc, cut, err := p.show(lang, ap, budget)
	if err != nil {
		return t.ApprovalUnreadable(Label(ap.Subject), err.Error()), []telegram.Button{reject}
	}
	for _, tool := range p.Agent.Tools() {
		if tool.Name == ap.Subject && tool.Server != "" {
			desc = t.ToolOrigin(Label(tool.Server), Label(tool.ServerTool)) + "\n" + desc
		}
	}
	buttons := []telegram.Button{{Text: t.Approve, Data: "approve:" + id}, reject}
	if cut {
		buttons = append(buttons, telegram.Button{Text: t.ShowWhole, Data: WholePrefix + ":" + id})
	}
	return desc, buttons
}

// show is the call of ap as Prompt shows it, within budget UTF-16 units
// (Telegram's measure), and whether anything of it was cut.
func (p *Prompts) show(lang string, ap memory.Approval, budget int) (string, bool, error) {
	t := texts.For(lang)
	var lines []line
	cut := false
	if desc, err := p.Agent.DescribeCall(ap.Subject, ap.Details); err == nil && desc != "" {
		for _, l := range strings.Split(desc, "\n") {
			lines = append(lines, line{value: l, limit: maxShownLine})
		}
	} else {
		args, err := agent.Args(ap.Details)
		if err != nil {
			return "", false, err
		}
		for _, a := range args {
			key, more := visible.EscapedCut(a.Key, 64)
			if more > 0 {
				key += t.MoreCharacters(more)
				cut = true
			}
			lines = append(lines, line{key: key + ": ", value: a.Value, limit: maxShownValue})
		}
	}
	var b strings.Builder
	used := 0
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		room := budget - used - visible.UTF16Len(l.key)
		if room <= 0 { // nothing more fits: what is left is counted
			more := 0
			for _, rest := range lines[i:] {
				more += utf8.RuneCountInString(rest.key) + utf8.RuneCountInString(rest.value)
			}
			b.WriteString(t.MoreCharacters(more))
			return b.String(), true, nil
		}
		value, more := visible.EscapedCut(l.value, min(l.limit, room))
		b.WriteString(l.key + value)
		used += visible.UTF16Len(l.key + value)
		if more > 0 {
			b.WriteString(t.MoreCharacters(more))
			cut = true
		}
	}
	return b.String(), cut, nil
}

// line is a line of a call as shown: a key (already visible), and a
// value cut to limit characters.
type line struct {
	key, value string
	limit      int
}

// Whole is the file that holds ap's call whole: its name and content, the
// arguments exactly as they run (pretty-printing would be a second copy).
func Whole(ap memory.Approval) (name string, data []byte) {
	return "arguments.json", []byte(ap.Details)
}

// Follows says, in lang, that a request follows text from the sources
// given; "" for none.
func Follows(lang string, sources []agent.Source) string {
	if len(sources) == 0 {
		return ""
	}
	t := texts.For(lang)
	words := make([]string, 0, len(sources))
	for _, s := range sources {
		format, ok := t.OutsideSources[string(s.Kind)]
		if !ok {
			format = t.OutsideSources[string(agent.SourceTool)]
		}
		if s.Name == "" {
			words = append(words, strings.TrimSpace(strings.ReplaceAll(format, "%s", "")))
			continue
		}
		words = append(words, fmt.Sprintf(format, Label(s.Name)))
	}
	return t.ApprovalFollows(strings.Join(words, "; "))
}
