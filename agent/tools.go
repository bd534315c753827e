package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/memory"
)

// Tool is a function the model may call.
type Tool struct {
	Name        string
	Description string
	Parameters  map[string]any // JSON Schema of the arguments object
	// Run gets the model's arguments as JSON and returns the text the model
	// sees. An error is shown to the model as the result, so it can recover.
	Run func(ctx context.Context, args json.RawMessage) (string, error)
}

// ToolEnv is what built-in tools may be configured from.
type ToolEnv struct {
	Location *time.Location
	Now      func() time.Time
}

// builtins are the constructors of the built-in tools. A tool's file adds
// itself here in an init function, so adding a tool is adding one file.
var builtins []func(ToolEnv) Tool

func registerBuiltin(newTool func(ToolEnv) Tool) { builtins = append(builtins, newTool) }

// Registry is the set of tools offered to the model.
type Registry struct {
	tools map[string]Tool
	defs  []openai.Tool
}

// NewRegistry returns a registry of the given tools.
func NewRegistry(tools ...Tool) *Registry {
	r := &Registry{tools: map[string]Tool{}}
	for _, t := range tools {
		r.tools[t.Name] = t
	}
	names := make([]string, 0, len(r.tools))
	for name := range r.tools {
		names = append(names, name)
	}
	slices.Sort(names) // a stable order keeps the prompt cacheable
	for _, name := range names {
		t := r.tools[name]
		r.defs = append(r.defs, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: t.Parameters,
		}})
	}
	return r
}

// BuiltinTools returns every built-in tool, configured from env.
func BuiltinTools(env ToolEnv) []Tool {
	if env.Now == nil {
		env.Now = time.Now
	}
	if env.Location == nil {
		env.Location = time.UTC
	}
	tools := make([]Tool, 0, len(builtins))
	for _, newTool := range builtins {
		tools = append(tools, newTool(env))
	}
	return tools
}

// Definitions returns the tool schemas in the API's format.
func (r *Registry) Definitions() []openai.Tool { return r.defs }

// maxToolResult bounds what one tool result may add to the context and the row.
const maxToolResult = 16 << 10

// Call runs one tool call. It never fails: unknown tools, bad arguments,
// errors and panics all become a result the model reads.
func (r *Registry) Call(ctx context.Context, call memory.ToolCall) (result string, failure error) {
	tool, ok := r.tools[call.Name]
	if !ok {
		return "", fmt.Errorf("unknown tool %q", call.Name)
	}
	args := json.RawMessage(call.Arguments)
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	if !json.Valid(args) {
		return "", fmt.Errorf("the arguments are not valid JSON: %s", truncate(call.Arguments, 200))
	}
	defer func() {
		if p := recover(); p != nil {
			failure = &toolPanic{value: p, stack: debug.Stack()}
		}
	}()
	return tool.Run(ctx, args)
}

// toolPanic is a recovered panic of a tool. The model sees only its value;
// the stack goes to the log.
type toolPanic struct {
	value any
	stack []byte
}

func (p *toolPanic) Error() string { return fmt.Sprintf("the tool crashed: %v", p.value) }

// runTools runs the tool calls of msg and returns the rows to store: the
// assistant row that asked, then one tool row per call.
func (a *Agent) runTools(ctx context.Context, msg openai.ChatCompletionMessage, updateID int64, meta map[string]any) []memory.Message {
	calls := make([]memory.ToolCall, len(msg.ToolCalls))
	for i, c := range msg.ToolCalls {
		calls[i] = memory.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments}
	}
	rows := []memory.Message{{Role: memory.RoleAssistant, Content: msg.Content, ToolCalls: calls, UpdateID: updateID, Metadata: meta}}
	for _, call := range calls {
		start := time.Now()
		result, err := a.tools.Call(ctx, call)
		toolMeta := map[string]any{"duration_ms": time.Since(start).Milliseconds(), "arguments": call.Arguments}
		var crash *toolPanic
		switch {
		case errors.As(err, &crash):
			a.log.Error("tool panicked", "tool", call.Name, "panic", crash.value, "stack", string(crash.stack))
		case err != nil:
			a.log.Warn("tool failed", "tool", call.Name, "err", err)
		}
		if err != nil {
			toolMeta["error"] = truncate(err.Error(), 2000)
			result = "error: " + truncate(err.Error(), 2000)
		}
		if len(result) > maxToolResult {
			toolMeta["truncated_from"] = len(result)
			result = truncate(result, maxToolResult) + "\n[truncated]"
		}
		rows = append(rows, memory.Message{Role: memory.RoleTool, Content: result, ToolCallID: call.ID,
			ToolName: call.Name, UpdateID: updateID, Metadata: toolMeta})
	}
	return rows
}

// truncate cuts s to at most n bytes without splitting a character.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
