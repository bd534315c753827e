package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/membot/membot/memory"
)

// ErrApprovalGone means the conversation that asked for an approval no
// longer holds the request (it was reset or its rows deleted).
var ErrApprovalGone = errors.New("the request is no longer part of the conversation")

// ResumeRequest continues a turn after one of its approvals was decided.
type ResumeRequest struct {
	Approval *memory.Approval // as decided
	UpdateID int64            // the update that carried the decision
	Thread   int64            // its topic (0: none): the turn's reminders are sent there
	Lang     string           // the language code of who decided, for the notes after the answer
}

// Resume settles the decided approvals of the paused turn (runs the
// approved calls, tells the model about the rejected ones) and, when none
// is pending any more, continues the turn to its answer. It is safe to call
// again for the same decision after a crash: calls with a stored result are
// not run twice, and an answer already stored is returned as it is.
func (a *Agent) Resume(ctx context.Context, req ResumeRequest) (*Reply, error) {
	ap := req.Approval
	if ap.ConversationID == "" || ap.AssistantMessageID == 0 {
		return nil, ErrApprovalGone
	}
	turn, err := a.store.ResumeTurn(ctx, memory.ResumeStart{
		UserID: ap.UserID, ChatID: ap.ChatID, ConversationID: ap.ConversationID, AssistantMessageID: ap.AssistantMessageID,
		UpdateID: req.UpdateID, HistoryLimit: a.cfg.HistoryLimit, FactChars: a.factChars(ap.ChatID, ap.UserID),
	})
	if err != nil {
		return nil, err
	}
	if turn.Answer != nil {
		return resumedReply(turn.Answer), nil
	}
	leaveOutForgotten(turn)
	asking := findRow(turn.History, ap.AssistantMessageID)
	if asking == nil {
		return nil, ErrApprovalGone
	}
	info := TurnInfo{UserID: ap.UserID, Chat: memory.Chat{ID: ap.ChatID, Thread: req.Thread}, ConversationID: ap.ConversationID,
		UserMessageID: turn.UserMessageID, UpdateID: req.UpdateID}

	answered := map[string]bool{}
	for _, r := range turn.History {
		if r.Role == memory.RoleTool && r.ID > asking.ID {
			answered[r.ToolCallID] = true
		}
	}
	var rows []memory.Message
	var waiting, others []memory.Approval
	notRun := map[string]bool{} // calls that were rejected or cancelled
	var notes []string          // for the user: approved calls refused as their pin broke
	for _, s := range turn.Approvals {
		switch {
		case s.AssistantMessageID != ap.AssistantMessageID:
			if s.Status == memory.ApprovalPending {
				others = append(others, s)
			}
			continue
		case s.Status == memory.ApprovalPending:
			waiting = append(waiting, s)
		case !answered[s.RequestID]:
			row, note, err := a.settle(ctx, &info, s, req.Lang)
			if err != nil {
				return nil, err
			}
			rows = append(rows, row)
			notes = appendOnce(notes, note)
		}
		notRun[s.RequestID] = s.Status != memory.ApprovalApproved
	}
	if len(rows) > 0 {
		if _, err := a.store.SaveStep(ctx, info.ConversationID, memory.Step{Messages: rows, Events: toolEvents(&info, rows)}); err != nil {
			return nil, err
		}
	}
	if len(waiting) > 0 {
		return &Reply{Outcome: Paused, Approvals: waiting}, nil
	}
	var used []string // the calls of the asking row that ran, at once or approved
	for _, c := range asking.ToolCalls {
		if !notRun[c.ID] {
			used = appendOnce(used, c.Name)
		}
	}
	t := &turnState{info: info, system: a.systemPrompt(turn, !info.Private(), others), model: a.ModelFor(turn.Model), lang: req.Lang,
		notes: slices.DeleteFunc(notes, func(n string) bool { return n == "" })}
	return a.loop(ctx, t, append(turn.History, rows...), used)
}

// settle returns the result row of a decided call: the tool's result when
// it was approved, otherwise a note that it did not run. An approved call
// of an MCP tool whose name now leads to another server or tool, or whose
// server announces another identity (Pin), is refused too, with note for
// the user saying so.
func (a *Agent) settle(ctx context.Context, info *TurnInfo, ap memory.Approval, lang string) (row memory.Message, note string, err error) {
	// The arguments exactly as the person was shown them.
	call := memory.ToolCall{ID: ap.RequestID, Name: ap.Subject, Arguments: ap.Details}
	decision := map[string]any{"approval_id": ap.ID, "approval": ap.Status, "decided_by": ap.DecidedBy}
	if ap.Status == memory.ApprovalApproved {
		stored, err := a.store.ApprovalPin(ctx, ap.ID)
		if err != nil {
			return row, "", err
		}
		tool, ok := a.tools.offered(ctx, call.Name)
		why, pin := pinBroken(stored, tool, ok)
		if why == "" {
			if stored != "" {
				ctx = WithPin(ctx, pin)
			}
			// runTools stores them canonical; parsed once here, at the
			// press, a row that is not still runs as the prompt showed it
			// (Args: the canonical form), or not at all.
			canonical, err := CanonicalArgs(call.Arguments)
			if err != nil {
				return a.resultRow(info, call, "", err, 0, decision), "", nil
			}
			call.Arguments = canonical
			return a.runCall(ctx, info, call, decision), "", nil
		}
		decision["arguments"], decision["error"] = call.Arguments, "pin broken: "+why
		refused := memory.Message{Role: memory.RoleTool, ToolCallID: call.ID, ToolName: call.Name, UpdateID: info.UpdateID, Metadata: decision,
			Content: "Not run: " + why + " since the user approved it, so it would not go where they approved. Tell the user; do not call it again unless they ask."}
		return refused, pinNote(lang, call.Name, pin, why), nil
	}
	decision["arguments"] = call.Arguments
	note = "Not run: the user rejected this call. Do not call it again unless the user asks you to."
	if ap.Status != memory.ApprovalRejected {
		note = "Not run: the request was " + ap.Status + " before anyone approved it."
	}
	return memory.Message{Role: memory.RoleTool, Content: note, ToolCallID: call.ID, ToolName: call.Name,
		UpdateID: info.UpdateID, Metadata: decision}, "", nil
}

// needsApproval reports whether a call must wait for a person's decision.
func (a *Agent) needsApproval(call memory.ToolCall, turn *TurnInfo) bool {
	tool, ok := a.tools.tool(call.Name)
	return ok && a.AsksFirstIn(tool, turn.UserID, turn.Chat.ID)
}

// AsksFirst tells whether the tool's calls wait for a person's approval:
// APPROVAL_REQUIRED_TOOLS names it, or it asks first itself (an MCP
// server's tool not marked autoApprove).
func (a *Agent) AsksFirst(tool Tool) bool { return a.cfg.NeedsApproval[tool.Name] || tool.AskFirst }

// AsksFirstIn tells whether the tool's calls by user in chat (a private
// chat's id is its user's) wait for approval: besides AsksFirst, an MCP
// server's tool marked autoApprove runs without asking only for its
// AutoApproveUsers, or, without them, in private chats and for the bot's
// admins.
func (a *Agent) AsksFirstIn(tool Tool, user, chat int64) bool {
	private := chat == user
	switch {
	case a.AsksFirst(tool):
		return true
	case tool.Server == "":
		return false
	case tool.AutoApproveUsers != nil:
		return !slices.Contains(tool.AutoApproveUsers, user)
	}
	return !private && (a.parts.IsAdmin == nil || !a.parts.IsAdmin(user))
}

// Tools returns the tools the model is offered now, by name.
func (a *Agent) Tools() []Tool { return a.tools.List() }

// askedBy returns the approvals that the update's turn asked for.
func askedBy(approvals []memory.Approval, updateID int64) []memory.Approval {
	var out []memory.Approval
	for _, ap := range approvals {
		if updateID != 0 && ap.UpdateID == updateID {
			out = append(out, ap)
		}
	}
	return out
}

// pending returns the approvals still waiting for a decision.
func pending(approvals []memory.Approval) []memory.Approval {
	var out []memory.Approval
	for _, ap := range approvals {
		if ap.Status == memory.ApprovalPending {
			out = append(out, ap)
		}
	}
	return out
}

func findRow(rows []memory.Message, id int64) *memory.Message {
	for i := range rows {
		if rows[i].ID == id {
			return &rows[i]
		}
	}
	return nil
}

// DescribeCall says what a call waiting for approval will do in its
// tool's own words (Registry.Describe), or "" when the call is to be shown
// by its arguments (Args).
func (a *Agent) DescribeCall(name, arguments string) (string, error) {
	return a.tools.Describe(name, arguments)
}

// ErrBadArguments means a call's arguments have no canonical form
// (CanonicalArgs), so it cannot run.
var ErrBadArguments = errors.New("the arguments cannot be read")

// CannotRun says why an approved call cannot run now, or nil: its tool is
// not offered (ErrToolNotOffered; right after a start this waits for the
// MCP servers, within ctx), or its arguments have no canonical form
// (ErrBadArguments).
func (a *Agent) CannotRun(ctx context.Context, ap memory.Approval) error {
	if _, err := a.tools.find(ctx, ap.Subject); err != nil {
		return err
	}
	if _, err := CanonicalArgs(ap.Details); err != nil {
		return fmt.Errorf("%w: %w", ErrBadArguments, err)
	}
	return nil
}
