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
func note(s string) memory.Message { return memory.Message{Role: memory.RoleSystem, Content: s} }
func result(id string) memory.Message {
	return memory.Message{Role: memory.RoleTool, ToolCallID: id, Content: "result of " + id}
}
func calls(reasoning string, ids ...string) memory.Message {
	m := memory.Message{Role: memory.RoleAssistant, ReasoningBack: reasoning}
	for _, id := range ids {
		m.ToolCalls = append(m.ToolCalls, memory.ToolCall{ID: id, Name: "echo", Arguments: "{}"})
	}
	return m
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

// The request the issue found: after a tool turn and a failed turn the
// roles were system, user, assistant, tool, assistant, system, user, user.
func TestTheRequestBuilderKeepsTheRoleInvariant(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		rows []memory.Message
		want string
	}{
		"tool turn, note, failed turn": {
			rows: []memory.Message{user("a"), calls("", "c1"), result("c1"), assistant("done"), note("Tools used: echo"), user("b"), user("c")},
			want: "system,user,assistant+calls,tool,assistant,user"},
		"a turn that failed after its tools ran": {
			rows: []memory.Message{user("a"), calls("", "c1", "c2"), result("c1"), result("c2"), user("b")},
			want: "system,user,assistant+calls,tool,tool,assistant,user"},
		"the window starts with an answer": {
			rows: []memory.Message{assistant("old answer"), user("b")},
			want: "system,user"},
		"the window starts with tool calls": {
			rows: []memory.Message{calls("", "c1"), result("c1")},
			want: "system,user,assistant+calls,tool"},
		"a result whose call fell outside the window": {
			rows: []memory.Message{result("c0"), user("a")},
			want: "system,user"},
		"an answer, then tool calls decided later": {
			rows: []memory.Message{user("a"), assistant("meanwhile"), calls("", "c1"), result("c1")},
			want: "system,user,assistant+calls,tool"},
	} {
		t.Run(name, func(t *testing.T) {
			if got := roles(t, request.Context{System: "S", Rows: tc.rows}.Build()); got != tc.want {
				t.Errorf("roles %s, want %s", got, tc.want)
			}
		})
	}
}

func TestTheBuilderFoldsNotesMergesAndSendsReasoningBackOnlyWithCalls(t *testing.T) {
	t.Parallel()
	rows := []memory.Message{user("a"), calls("thinking", "c1"), result("c1"),
		{Role: memory.RoleAssistant, Content: "done", ReasoningBack: "not sent"}, note("Tools used: echo"), user("b"), user("c")}
	msgs := request.Context{System: "S", Rows: rows}.Build()
	if !strings.HasSuffix(msgs[0].Content, "- Tools used: echo") || !strings.HasPrefix(msgs[0].Content, "S\n\n") {
		t.Errorf("system = %q", msgs[0].Content)
	}
	if last := msgs[len(msgs)-1]; last.Content != "b\n\nc" {
		t.Errorf("the unanswered message is not merged with the next: %q", last.Content)
	}
	if msgs[2].ReasoningContent != "thinking" || msgs[4].ReasoningContent != "" {
		t.Errorf("reasoning sent back: %q and %q", msgs[2].ReasoningContent, msgs[4].ReasoningContent)
	}
	if msgs := (request.Context{System: "S", Rows: rows, DropReasoning: true}.Build()); msgs[2].ReasoningContent != "" {
		t.Error("reasoning sent back to a server that refuses it")
	}
}

// The window is the newest rows that fit the token budget; the turn at hand
// is always there, and a cut never separates calls from their results.
func TestTheWindowFitsTheTokenBudget(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("word ", 300) // ~500 tokens estimated
	rows := []memory.Message{user(long), assistant(long), user("q"), calls("", "c1"), result("c1"), assistant(long), user("now")}
	if got := roles(t, request.Context{System: "S", Rows: rows, Tokens: 100}.Build()); got != "system,user" {
		t.Errorf("a small budget: %s", got)
	}
	if got := roles(t, request.Context{System: "S", Rows: rows, Tokens: 700}.Build()); got != "system,user,assistant+calls,tool,assistant,user" {
		t.Errorf("a budget for the newest answer: %s", got)
	}
	if got := roles(t, request.Context{System: "S", Rows: rows, Tokens: 1e6}.Build()); got != "system,user,assistant,user,assistant+calls,tool,assistant,user" {
		t.Errorf("no bound: %s", got)
	}
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

// Image parts survive the builder: a row with images becomes a message of
// parts (its text first), merged with an unanswered user row before it;
// the window's size counts each image, not its data URL's length.
func TestImagePartsSurviveTheRequestBuilder(t *testing.T) {
	first, photo, answer, next := user("look:"), user("[photo] what is it?"), assistant("a cat"), user("and its color?")
	first.ID, photo.ID, answer.ID, next.ID = 1, 2, 3, 4
	img := llm.Part{Type: "image_url", ImageURL: &llm.ImageURL{URL: "data:image/jpeg;base64," + strings.Repeat("A", 30000)}}
	c := request.Context{System: "sys", Rows: []memory.Message{first, photo, answer, next}, Images: map[int64][]llm.Part{2: {img}}}
	msgs := c.Build()
	if got := roles(t, msgs); got != "system,user,assistant,user" {
		t.Fatalf("roles = %s", got)
	}
	parts := msgs[1].Parts
	if len(parts) != 3 || parts[0].Text != "look:" || parts[1].Text != "[photo] what is it?" || parts[2].ImageURL == nil || msgs[1].Content != "" {
		t.Fatalf("the merged user message = %+v", msgs[1])
	}
	// The image counts request.TokensPerImage towards the window: with room for
	// less, its row is left out; with room for more, it is in.
	c.Tokens = 1000
	if msgs := c.Build(); len(msgs) != 2 || msgs[1].Content != "and its color?" {
		t.Fatalf("with room for the question only, the request is %+v", msgs)
	}
	c.Tokens = 3000
	if msgs := c.Build(); len(msgs) != 4 {
		t.Fatalf("with room for the image, the request has %d messages", len(msgs))
	}
	// 30,000 bytes of data URL would be estimated at 10,000 tokens.
	if n := request.EstimatePrompt(llm.Request{Messages: msgs}); n > 2*request.TokensPerImage {
		t.Errorf("a request with one image is estimated at %d tokens", n)
	}
}

// Tools whose definitions leave no room (an MCP server's many large ones)
// leave the turn at hand alone in the request, never the whole history
// unbounded, and the log says why.
func TestToolDefinitionsThatFillTheContextLeaveTheTurnAlone(t *testing.T) {
	t.Parallel()
	var logs strings.Builder
	huge := Tool{Name: "huge", Parameters: map[string]any{"type": "object", "description": strings.Repeat("word ", 4000)}}
	a := New(nil, nil, NewRegistry(huge), Config{ContextTokens: 2000, MaxAnswerTokens: 100}, slog.New(slog.NewTextHandler(&logs, nil)))
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
