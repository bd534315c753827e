package agent

import (
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/agent/llm"
	"github.com/membot/membot/agent/request"
	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/memory"
)

func user(s string) memory.Message { return memory.Message{Role: memory.RoleUser, Content: s} }
func assistant(s string) memory.Message {
	return memory.Message{Role: memory.RoleAssistant, Content: s}
}

// roles lists the messages' roles, tool calls counted, and checks them
// against the invariant strict servers hold.
func roles(t *testing.T, msgs []llm.Message) string {
	t.Helper()
	var wire []openai.ChatCompletionMessage
	var out []string
	for _, m := range msgs {
		w := openai.ChatCompletionMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
		for _, c := range m.ToolCalls {
			w.ToolCalls = append(w.ToolCalls, openai.ToolCall{ID: c.ID})
		}
		wire = append(wire, w)
		r := m.Role
		if len(m.ToolCalls) > 0 {
			r += "+calls"
		}
		out = append(out, r)
	}
	if err := openaifake.CheckRoles(wire); err != nil {
		t.Errorf("%s: %v", strings.Join(out, ","), err)
	}
	return strings.Join(out, ",")
}

func TestAModelWithoutImagesGetsANoteInstead(t *testing.T) {
	t.Parallel()
	msgs := request.WithoutImages([]llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{
		{Type: "text", Text: "what is this?"}, {Type: "image_url", ImageURL: &llm.ImageURL{URL: "data:image/png;base64,AAAA"}}}}})
	if msgs[0].Parts != nil || msgs[0].Content != "what is this?\n\n"+request.ImageOmitted {
		t.Fatalf("%+v", msgs[0])
	}
	l := &learned{caps: map[string]Capabilities{}, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	req := llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{{Type: "image_url", ImageURL: &llm.ImageURL{URL: "x"}}}}}}
	if !l.learn("m", req, &llm.APIError{Status: 400, Message: "llama3.1:8b is not a multimodal model"}) || !l.get("m").NoImages {
		t.Fatal("a refusal of images was not learned")
	}
	if l.learn("m", req, &llm.APIError{Status: 400, Message: "llama3.1:8b is not a multimodal model"}) {
		t.Fatal("learned twice")
	}
}

// Tools whose definitions leave no room (an MCP server's many large ones)
// leave the turn at hand alone in the request, never the whole history
// unbounded, and the log says why.
func TestToolDefinitionsThatFillTheContextLeaveTheTurnAlone(t *testing.T) {
	t.Parallel()
	var logs strings.Builder
	huge := Tool{Name: "huge", Parameters: map[string]any{"type": "object", "description": strings.Repeat("word ", 4000)}}
	a := New(Config{ContextTokens: 2000, MaxAnswerTokens: 100}, Parts{Tools: NewRegistry(huge), Log: slog.New(slog.NewTextHandler(&logs, nil))})
	long := strings.Repeat("word ", 100)
	rows := []memory.Message{user(long), assistant(long), user("now")}
	req := a.request(&turnState{model: "m"}, rows, true, Capabilities{})
	if got := roles(t, req.Messages); got != "system,user" || len(req.Tools) != 1 {
		t.Errorf("the request holds %s and %d tools", got, len(req.Tools))
	}
	if !strings.Contains(logs.String(), "the tools' definitions take more than half of CONTEXT_TOKENS") {
		t.Errorf("no warning in the log: %s", logs.String())
	}
	if req := a.request(&turnState{model: "m"}, rows, false, Capabilities{}); roles(t, req.Messages) != "system,user,assistant,user" {
		t.Errorf("without tools the request holds %s", roles(t, req.Messages))
	}
}
