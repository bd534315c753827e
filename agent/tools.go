package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"runtime/debug"
	"slices"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/agent/llm"
	"github.com/membot/membot/agent/request"
	"github.com/membot/membot/memory"
)

// Tool is a function the model may call.
type Tool struct {
	Name        string
	Description string
	Parameters  map[string]any // JSON Schema of the arguments object
	// Run gets the turn the call belongs to and the call's arguments in
	// their canonical form (CanonicalArgs), and returns the text the model
	// sees. An error is shown to the model as the result, so it can
	// recover.
	Run func(ctx context.Context, turn *TurnInfo, args json.RawMessage) (string, error)
	// Describe, when set, says what a call will do, for a person asked to
	// approve it (APPROVAL_REQUIRED_TOOLS), from the strictly decoded
	// arguments; an error refuses the call before anyone is asked. Tools
	// without it are shown by their arguments (Args).
	Describe func(args json.RawMessage) (string, error)

	// AskFirst: every call waits for a person's approval, whatever
	// APPROVAL_REQUIRED_TOOLS says (an MCP server's tool not marked
	// autoApprove).
	AskFirst bool
	// Outside: the results are text nobody in the chat wrote (a web page,
	// an MCP server's answer); while one is in what the model reads, the
	// tools marked ConfirmAfterOutside ask first.
	Outside bool
	// Source, when set, names where an Outside tool's result came from,
	// from the call's arguments (fetch_url: the page's host); unset: the
	// tool's MCP server, or the tool.
	Source func(args json.RawMessage) Source
	// ConfirmAfterOutside: while outside text is in what the model reads
	// (readOutside), a call waits for the user's confirmation. The tools
	// whose calls last or act outward (remember, forget, schedule_task,
	// set_reminder, generate_image, fetch_url, cancel_task) set it: a page
	// must not plant a lasting instruction, erase what the user said, or
	// send their words anywhere.
	ConfirmAfterOutside bool
	// DescribedOutside: the tool's description was written by someone the
	// operator has not trusted (an MCP server not marked "trusted"): what
	// the model reads of it is outside text, as its results are (Outside).
	DescribedOutside bool
	// Server is the MCP server the tool comes from, and ServerTool its
	// name there; "" for the built-in tools.
	Server, ServerTool string
	// Identity, of an MCP server's tool, is the name and version its
	// server announced at initialize in the session it has now ("" when
	// it has none): an approved call is pinned to it (Pin).
	Identity func() string
	// AutoApproveUsers, of an MCP server's tool that runs without asking
	// (AskFirst false), are the only users for whom it does; when nil, it
	// does in private chats and, in groups, for the bot's admins
	// (Parts.IsAdmin).
	AutoApproveUsers []int64
}

// TurnInfo is whose turn a tool call belongs to: tools that store or look
// up something of the user or the chat take it from here.
type TurnInfo struct {
	UserID         int64
	Chat           memory.Chat // the chat and its topic
	ConversationID string
	UserMessageID  int64 // the user's row that began the turn
	UpdateID       int64 // the update whose rows the turn stores; 0 when none
	Forwarded      bool  // Telegram marked the user's message forwarded
	// sent is what tools sent to the chat themselves (a picture drawn),
	// by metadata key: the turn's answer row keeps it (Sent).
	sent map[string][]any
}

// Sent notes in the turn's answer row's metadata, under key, a thing a
// tool sent to the chat itself (generate_image's photo: "media" and
// "images"), so that the row names it as a user row names its files.
func (t *TurnInfo) Sent(key string, value any) {
	if t.sent == nil {
		t.sent = map[string][]any{}
	}
	t.sent[key] = append(t.sent[key], value)
}

// SentCount is how many things were noted under key this turn.
func (t *TurnInfo) SentCount(key string) int { return len(t.sent[key]) }

// Private tells whether the turn is in the user's private chat (whose id
// is the user's): their long-term facts are read and written only there.
func (t *TurnInfo) Private() bool { return t.Chat.ID == t.UserID }

// Registry is the set of tools offered to the model: the built-in ones,
// fixed, and those of the MCP servers, which change while the bot runs
// (SetExtra). Each change makes a new set; a turn reads the set of the
// moment.
type Registry struct {
	base    []Tool
	current atomic.Pointer[toolSet]
	// extraDue, when set, is closed once the extra tools are all offered
	// (AwaitExtra).
	extraDue atomic.Pointer[<-chan struct{}]
}

// toolSet is the tools offered at one moment, with their definitions
// encoded once: marshalling the schemas' maps again on every model call was
// a tenth of the bot's CPU time per turn.
type toolSet struct {
	tools  map[string]Tool
	defs   []openai.Tool
	tokens int // the definitions' estimated size
}

// NewRegistry returns a registry of the given tools.
func NewRegistry(tools ...Tool) *Registry {
	r := &Registry{base: tools}
	r.current.Store(newToolSet(tools))
	return r
}

// SetExtra offers the given tools besides those the registry was made
// with, in place of the extra tools offered before. A name the registry
// was made with is never replaced.
func (r *Registry) SetExtra(extra []Tool) {
	tools := slices.Clone(r.base)
	for _, t := range extra {
		if !slices.ContainsFunc(r.base, func(b Tool) bool { return b.Name == t.Name }) {
			tools = append(tools, t)
		}
	}
	r.current.Store(newToolSet(tools))
}

// AwaitExtra makes a call of a tool not offered wait until due is closed
// (or the call's context ends) before it is refused as unknown. Right after
// a restart the MCP servers are still being started: a call approved
// before the restart, and pressed Approve on now, names a tool they will
// offer in a moment.
func (r *Registry) AwaitExtra(due <-chan struct{}) { r.extraDue.Store(&due) }

// offered returns the tool offered under name, waiting for the extra
// tools still due (AwaitExtra) when there is none yet.
func (r *Registry) offered(ctx context.Context, name string) (Tool, bool) {
	if t, ok := r.tool(name); ok {
		return t, true
	}
	if due := r.extraDue.Load(); due != nil {
		select {
		case <-*due:
		case <-ctx.Done():
		}
	}
	return r.tool(name)
}

func newToolSet(tools []Tool) *toolSet {
	s := &toolSet{tools: map[string]Tool{}}
	for _, t := range tools {
		s.tools[t.Name] = t
	}
	names := slices.Sorted(maps.Keys(s.tools)) // a stable order keeps the prompt cacheable
	for _, name := range names {
		t := s.tools[name]
		params, err := json.Marshal(t.Parameters)
		if err != nil {
			panic(fmt.Sprintf("tool %s: parameters: %v", t.Name, err)) // a programming error in the tool's file
		}
		s.defs = append(s.defs, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: json.RawMessage(params),
		}})
	}
	defs, _ := json.Marshal(s.defs)
	s.tokens = request.EstimateTokens(string(defs))
	return s
}

// tool returns the tool offered under name now.
func (r *Registry) tool(name string) (Tool, bool) {
	t, ok := r.current.Load().tools[name]
	return t, ok
}

// Outside tells whether the results of the tool called name are text
// nobody in the chat wrote (Tool.Outside); a tool no longer offered (its
// MCP server changed its list), or any tool without a registry, counts
// as outside.
func (r *Registry) Outside(name string) bool {
	if r == nil {
		return true
	}
	t, ok := r.tool(name)
	return !ok || t.Outside
}

// confirmAfterOutside tells whether a call of the tool called name waits
// for the user's confirmation after outside text (Tool.ConfirmAfterOutside);
// a tool not offered does not run at all.
func (r *Registry) confirmAfterOutside(name string) bool {
	t, ok := r.tool(name)
	return ok && t.ConfirmAfterOutside
}

// List returns the tools offered now, by name.
func (r *Registry) List() []Tool {
	set := r.current.Load()
	list := make([]Tool, 0, len(set.tools))
	for _, name := range slices.Sorted(maps.Keys(set.tools)) {
		list = append(list, set.tools[name])
	}
	return list
}

// metricName is the tool's name, "mcp" for any MCP server's tool, or
// "unknown" for names the model made up: what servers and models name must
// not become metric labels without bound.
func (r *Registry) metricName(name string) string {
	t, ok := r.tool(name)
	switch {
	case !ok:
		return "unknown"
	case t.Server != "":
		return "mcp"
	}
	return name
}

// Describe says what a call of the named tool will do, for approval, in
// the tool's own words (Tool.Describe): an error refuses the call before
// anyone is asked. It is "" for a tool without them, or not offered now:
// such a call is shown by its arguments (Args).
func (r *Registry) Describe(name, arguments string) (string, error) {
	tool, ok := r.tool(name)
	if !ok || tool.Describe == nil {
		return "", nil
	}
	canonical, err := CanonicalArgs(arguments)
	if err != nil {
		return "", fmt.Errorf("bad arguments: %w", err)
	}
	return tool.Describe(json.RawMessage(canonical))
}

// describe is Describe of arguments already canonical (CanonicalArgs).
func (r *Registry) describe(name string, canonical json.RawMessage) (string, error) {
	tool, ok := r.tool(name)
	if !ok || tool.Describe == nil {
		return "", nil
	}
	return tool.Describe(canonical)
}

// Definitions returns the tool schemas in the API's format, and their
// estimated size in tokens.
func (r *Registry) Definitions() ([]openai.Tool, int) {
	set := r.current.Load()
	return set.defs, set.tokens
}

// maxToolResult bounds what one tool result may add to the context and the row.
const maxToolResult = 16 << 10

// Call runs one tool call outside a turn's steps: its arguments are put
// in their canonical form (CanonicalArgs) once and run as those bytes.
// It never fails: unknown tools, bad arguments, errors and panics all
// become a result the model reads.
func (r *Registry) Call(ctx context.Context, turn *TurnInfo, call memory.ToolCall) (string, error) {
	args, err := CanonicalArgs(call.Arguments)
	if err != nil {
		return "", err
	}
	return r.run(ctx, turn, call.Name, json.RawMessage(args))
}

// run runs the tool offered as name with args, which are in their
// canonical form (CanonicalArgs) already: the caller parsed them once,
// and the tool gets those bytes. It never fails: an unknown tool, an
// error and a panic all become a result the model reads.
func (r *Registry) run(ctx context.Context, turn *TurnInfo, name string, args json.RawMessage) (result string, failure error) {
	tool, err := r.find(ctx, name)
	if err != nil {
		return "", err
	}
	defer func() {
		if p := recover(); p != nil {
			failure = &toolPanic{value: p, stack: debug.Stack()}
		}
	}()
	return tool.Run(ctx, turn, args)
}

// ErrToolNotOffered means a call names a tool that is not offered (any
// more, or yet after the bounded wait for the MCP servers).
var ErrToolNotOffered = errors.New("the tool is not offered")

// find returns the tool offered as name, waiting for the tools still
// due, or ErrToolNotOffered.
func (r *Registry) find(ctx context.Context, name string) (Tool, error) {
	tool, ok := r.offered(ctx, name)
	if !ok {
		return Tool{}, fmt.Errorf("unknown tool %q: %w", name, ErrToolNotOffered)
	}
	return tool, nil
}

// toolPanic is a recovered panic of a tool. The model sees only its value;
// the stack goes to the log.
type toolPanic struct {
	value any
	stack []byte
}

func (p *toolPanic) Error() string { return fmt.Sprintf("the tool crashed: %v", p.value) }

// maxSources bounds the sources of outside text an approval names.
const maxSources = 3

// readOutside returns where the text the user did not write, in what the
// model reads this request, came from (origins.go), newest first, at most
// maxSources; none when there is none. It reads every row of the window as
// the request sends it (history, request.ValidWindow) — a user row that is
// not the turn's user's own words, a result of a tool whose results are
// outside text (Registry.Outside) — the older rows recalled into the
// system prompt, and the offered tools whose descriptions are
// (Tool.DescribedOutside). Text that left the window (and is not
// recalled), or went with /new, no longer counts. While there is some,
// the calls of the tools marked ConfirmAfterOutside need the user's
// confirmation.
func (r *Registry) readOutside(history []memory.Message, recalled []memory.Snippet, turn *TurnInfo) []Source {
	var found []Source
	add := func(s Source) {
		if len(found) < maxSources && !slices.Contains(found, s) {
			found = append(found, s)
		}
	}
	if turn.Forwarded {
		add(Source{Kind: SourceForwarded})
	}
	rows := request.ValidWindow(history)
	args := map[string]string{} // of each call in the window, by its id
	for _, m := range rows {
		for _, c := range m.ToolCalls {
			args[c.ID] = c.Arguments
		}
	}
	for _, m := range slices.Backward(rows) {
		switch m.Role {
		case memory.RoleUser:
			if s, ok := userSource(m, turn); ok {
				add(s)
			}
		case memory.RoleTool:
			if r.Outside(m.ToolName) {
				add(r.source(m.ToolName, args[m.ToolCallID]))
			}
		}
	}
	for _, s := range recalled {
		if s.Role != memory.RoleUser {
			continue
		}
		row := memory.Message{Role: s.Role, Content: s.Text, AuthorID: s.AuthorID, Forwarded: s.Forwarded, ViaBot: s.ViaBot, Media: s.Media}
		if s, ok := userSource(row, turn); ok {
			add(s)
		}
	}
	if r != nil {
		for _, t := range r.List() {
			if t.DescribedOutside {
				add(Source{Kind: SourceDescribed, Name: Truncate(cmp.Or(t.Server, t.Name), maxSourceName)})
			}
		}
	}
	return found
}

// source is where a result of the tool called name, called with args,
// came from.
func (r *Registry) source(name, args string) Source {
	t, ok := Tool{}, false
	if r != nil {
		t, ok = r.tool(name)
	}
	switch {
	case ok && t.Source != nil:
		s := t.Source(json.RawMessage(args))
		s.Name = Truncate(s.Name, maxSourceName)
		return s
	case ok && t.Server != "":
		return Source{Kind: SourceMCP, Name: Truncate(t.Server, maxSourceName)}
	}
	return Source{Kind: SourceTool, Name: Truncate(name, maxSourceName)}
}

// The bounds on what one turn may make tools do.
const (
	maxCallsPerAnswer = 8
	maxCallsPerTurn   = 24
)

// runTools returns the rows to store for the tool calls of msg: the
// assistant row that asked, then the result row of each call that could run
// at once. The calls that need a person's approval are returned as requests
// instead: they have no result row yet.
//
// At most room calls run. One answer asking for more (a page the model read
// may tell it to call a tool a thousand times) has the rest refused: the
// first call past room is kept with an error result that says so, and the
// others are not stored at all (the assistant row's metadata counts them).
//
// While outside text is in what the model reads (readOutside), calls that
// last or act outward (Tool.ConfirmAfterOutside) wait for the user's
// confirmation: a page must not plant a lasting instruction, erase what
// the user said, or send their words anywhere.
func (a *Agent) runTools(ctx context.Context, turn *TurnInfo, resp *llm.Response, meta map[string]any, room int, readOutside bool) (rows []memory.Message, requests []memory.Approval) {
	msg := resp.Message
	asked := msg.ToolCalls
	refused := 0
	if room = max(room, 0); len(asked) > room {
		refused = len(asked) - room
		asked = asked[:room+1]
		meta["tool_calls_refused"] = refused
	}
	calls := make([]memory.ToolCall, len(asked))
	badArgs := map[int]error{} // by index: refused, never shown to anyone nor run
	for i, c := range asked {
		calls[i] = memory.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments}
		// Stored, described, shown and run in one form only, parsed here
		// once: the model's text would let a person approve one reading
		// and the tool run another.
		if canonical, err := CanonicalArgs(c.Function.Arguments); err != nil {
			badArgs[i] = err
		} else if !resp.Oversized[c.ID] {
			calls[i].Arguments = canonical
		}
		if len(c.Extra) > 0 {
			calls[i].Extra, _ = json.Marshal(c.Extra) // sent back with the call (Gemini's thought signature)
		}
		if calls[i].ID == "" { // some servers leave it out; results and approvals need one
			calls[i].ID = fmt.Sprintf("call_%d_%d", turn.UpdateID, time.Now().UnixNano()+int64(i))
		}
	}
	rows = []memory.Message{{Role: memory.RoleAssistant, Content: msg.Content, ToolCalls: calls, UpdateID: turn.UpdateID,
		Metadata: meta, ReasoningBack: reasoningBack(resp)}}
	for i, call := range calls {
		if i == room {
			rows = append(rows, memory.Message{Role: memory.RoleTool, ToolCallID: call.ID, ToolName: call.Name, UpdateID: turn.UpdateID,
				Content: fmt.Sprintf("error: too many tool calls: at most %d in one answer and %d in one turn; this call and the %d after it "+
					"were not run. Answer the user with what you have.", maxCallsPerAnswer, maxCallsPerTurn, refused-1),
				Metadata: map[string]any{"error": "tool call limit", "refused": refused, "duration_ms": 0}})
			break
		}
		if resp.Oversized[call.ID] {
			rows = append(rows, memory.Message{Role: memory.RoleTool, ToolCallID: call.ID, ToolName: call.Name, UpdateID: turn.UpdateID,
				Content:  "error: the arguments of this call were longer than allowed and were refused; call it again with shorter arguments",
				Metadata: map[string]any{"error": "arguments over the size bound", "duration_ms": 0}})
			continue
		}
		if err := badArgs[i]; err != nil {
			rows = append(rows, memory.Message{Role: memory.RoleTool, ToolCallID: call.ID, ToolName: call.Name, UpdateID: turn.UpdateID,
				Content:  "error: " + err.Error() + "; the call did not run: call it again with valid arguments",
				Metadata: map[string]any{"error": err.Error(), "arguments": Truncate(call.Arguments, 2000), "duration_ms": 0}})
			continue
		}
		if a.needsApproval(call, turn) || (readOutside && a.tools.confirmAfterOutside(call.Name)) {
			if _, err := a.tools.describe(call.Name, json.RawMessage(call.Arguments)); err != nil {
				// Refused before anyone is asked: a person never sees a call
				// they cannot read whole.
				rows = append(rows, memory.Message{Role: memory.RoleTool, ToolCallID: call.ID, ToolName: call.Name, UpdateID: turn.UpdateID,
					Content: "error: " + err.Error(), Metadata: map[string]any{"error": err.Error(), "arguments": call.Arguments, "duration_ms": 0}})
				continue
			}
			requests = append(requests, memory.Approval{RequestID: call.ID, Subject: call.Name, Details: call.Arguments,
				UserID: turn.UserID, ChatID: turn.Chat.ID, UpdateID: turn.UpdateID, Pin: a.pin(call.Name)})
			continue
		}
		rows = append(rows, a.runCall(ctx, turn, call, nil))
	}
	return rows, requests
}

// reasoningBack is the reasoning a tool-calling answer must carry when
// sent back: what the server sent as reasoning_content.
func reasoningBack(resp *llm.Response) string {
	if resp.ReasoningFrom != "reasoning_content" {
		return ""
	}
	return Truncate(resp.Reasoning, maxStoredReasoning)
}

// runCall runs one call whose arguments are canonical (CanonicalArgs:
// as they were stored and, when it asked first, shown) and returns its
// result row (resultRow). The tool gets call.Arguments as they are.
func (a *Agent) runCall(ctx context.Context, turn *TurnInfo, call memory.ToolCall, extra map[string]any) memory.Message {
	start := time.Now()
	result, err := a.tools.run(ctx, turn, call.Name, json.RawMessage(call.Arguments))
	return a.resultRow(turn, call, result, err, time.Since(start), extra)
}

// resultRow is the result row of a call that took took, whose metadata
// records the arguments, the duration and any error, plus extra.
func (a *Agent) resultRow(turn *TurnInfo, call memory.ToolCall, result string, err error, took time.Duration, extra map[string]any) memory.Message {
	meta := map[string]any{"duration_ms": took.Milliseconds(), "arguments": call.Arguments}
	a.parts.Metrics.ToolCall(a.tools.metricName(call.Name), err)
	if t, ok := a.tools.tool(call.Name); ok && t.Server != "" {
		meta["mcp_server"], meta["mcp_tool"] = t.Server, t.ServerTool
	}
	for k, v := range extra {
		meta[k] = v
	}
	var crash *toolPanic
	switch {
	case errors.As(err, &crash):
		a.log.Error("tool panicked", "tool", call.Name, "panic", crash.value, "stack", string(crash.stack))
	case err != nil:
		a.log.Warn("tool failed", "tool", call.Name, "err", err)
	}
	if err != nil {
		meta["error"] = Truncate(err.Error(), 2000)
		result = "error: " + Truncate(err.Error(), 2000)
	}
	if len(result) > maxToolResult {
		meta["truncated_from"] = len(result)
		result = Truncate(result, maxToolResult) + "\n[truncated]"
	}
	return memory.Message{Role: memory.RoleTool, Content: result, ToolCallID: call.ID, ToolName: call.Name,
		UpdateID: turn.UpdateID, Metadata: meta}
}

// Truncate cuts s to at most n bytes without splitting a character.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// toolEvents are the tool_called events of the tool rows of calls that ran
// (not those a person rejected).
func toolEvents(info *TurnInfo, toolRows []memory.Message) []memory.Event {
	events := make([]memory.Event, 0, len(toolRows))
	for _, row := range toolRows {
		if decision, ok := row.Metadata["approval"]; ok && decision != memory.ApprovalApproved {
			continue
		}
		payload := map[string]any{"tool": row.ToolName, "tool_call_id": row.ToolCallID, "duration_ms": row.Metadata["duration_ms"]}
		if failure, ok := row.Metadata["error"]; ok {
			payload["error"] = failure
		}
		if server, ok := row.Metadata["mcp_server"]; ok {
			payload["mcp_server"], payload["mcp_tool"] = server, row.Metadata["mcp_tool"]
		}
		events = append(events, memory.Event{Type: memory.EventToolCalled, UserID: info.UserID,
			ChatID: info.Chat.ID, UpdateID: info.UpdateID, Payload: payload})
	}
	return events
}
