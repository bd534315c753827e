package request

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/agent/llm"
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
func calls(ids ...string) memory.Message {
	m := memory.Message{Role: memory.RoleAssistant}
	for _, id := range ids {
		m.ToolCalls = append(m.ToolCalls, memory.ToolCall{ID: id, Name: "echo", Arguments: "{}"})
	}
	return m
}

// shape writes msgs one a message, "role:content" (calls as
// "+calls=id,id", results as "=id"), and checks them against the
// invariant strict servers hold (openaifake.CheckRoles).
func shape(t *testing.T, msgs []llm.Message) string {
	t.Helper()
	var wire []openai.ChatCompletionMessage
	var out []string
	for _, m := range msgs {
		w := openai.ChatCompletionMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
		s := m.Role + ":" + m.Content
		var ids []string
		for _, c := range m.ToolCalls {
			w.ToolCalls = append(w.ToolCalls, openai.ToolCall{ID: c.ID})
			ids = append(ids, c.ID)
		}
		if len(ids) > 0 {
			s += "+calls=" + strings.Join(ids, ",")
		}
		if m.ToolCallID != "" {
			s += "=" + m.ToolCallID
		}
		wire = append(wire, w)
		out = append(out, s)
	}
	if err := openaifake.CheckRoles(wire); err != nil {
		t.Errorf("%s: %v", strings.Join(out, " | "), err)
	}
	return strings.Join(out, " | ")
}

func TestBuildShapesEveryWindowAsStrictServersWant(t *testing.T) {
	t.Parallel()
	refused := user("bad")
	refused.Refused = "400 content policy"
	cases := []struct {
		name string
		rows []memory.Message
		want string
	}{
		{"a plain exchange", []memory.Message{user("a"), assistant("b"), user("c")},
			"system:S | user:a | assistant:b | user:c"},
		{"a note goes into the system message", []memory.Message{user("a"), calls("c1"), result("c1"), assistant("done"), note("Tools used: echo"), user("b")},
			"system:S\n\nNotes recorded in this conversation, oldest first:\n- Tools used: echo | user:a | assistant:+calls=c1 | tool:result of c1=c1 | assistant:done | user:b"},
		{"an unanswered user row is merged with the next", []memory.Message{user("a"), user("b"), user("c")},
			"system:S | user:a\n\nb\n\nc"},
		{"a row refused for good is left out, and said so", []memory.Message{user("a"), assistant("b"), refused, user("c")},
			"system:S\n\nNotes recorded in this conversation, oldest first:\n- " + fmt.Sprintf(refusedNote, "400 content policy") + " | user:a | assistant:b | user:c"},
		{"an assistant row after another is merged into it", []memory.Message{user("a"), assistant("one"), assistant("two"), user("b")},
			"system:S | user:a | assistant:one\n\ntwo | user:b"},
		{"a turn that failed after its tools ran", []memory.Message{user("a"), calls("c1", "c2"), result("c1"), result("c2"), user("b")},
			"system:S | user:a | assistant:+calls=c1,c2 | tool:result of c1=c1 | tool:result of c2=c2 | assistant:" + unanswered + " | user:b"},
		{"the window starts with an answer", []memory.Message{assistant("old"), user("b")},
			"system:S | user:b"},
		{"the window starts with tool calls", []memory.Message{calls("c1"), result("c1")},
			"system:S | user:" + earlierOmitted + " | assistant:+calls=c1 | tool:result of c1=c1"},
		{"a result whose call fell outside the window", []memory.Message{result("c0"), user("a")},
			"system:S | user:a"},
		{"an answer, then tool calls decided later", []memory.Message{user("a"), assistant("meanwhile"), calls("c1"), result("c1")},
			"system:S | user:a | assistant:meanwhile+calls=c1 | tool:result of c1=c1"},
		{"an empty answer and an empty result", []memory.Message{user("a"), assistant(""), user("b"), calls("c1"), {Role: memory.RoleTool, ToolCallID: "c1"}},
			"system:S | user:a | assistant:(empty) | user:b | assistant:+calls=c1 | tool:(empty)=c1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := shape(t, Context{System: "S", Rows: c.rows}.Build()); got != c.want {
				t.Errorf("request\n%q\nwant\n%q", got, c.want)
			}
		})
	}
}

func TestValidWindow(t *testing.T) {
	t.Parallel()
	two := calls("x", "y")
	cases := []struct {
		name string
		rows []memory.Message
		want string
	}{
		{"an orphan result and a call never answered are dropped",
			[]memory.Message{result("old"), assistant("a1"), two, result("x"), user("u"), calls("z"), result("z"), note("n")},
			"assistant:a1 user:u assistant:+z tool:result of z system:n"},
		{"a call decided later reads as made when decided",
			[]memory.Message{user("read"), calls("f", "c"), result("c"), user("meanwhile"), assistant("sure"), result("f"), calls("f"), result("f")},
			"user:read user:meanwhile assistant:sure assistant:+f,c tool:result of f tool:result of c assistant:+f tool:result of f"},
		{"a call still waiting is left out",
			[]memory.Message{user("read"), calls("f", "c"), result("c"), user("meanwhile"), assistant("sure")},
			"user:read user:meanwhile assistant:sure"},
	}
	for _, c := range cases {
		var got []string
		for _, r := range ValidWindow(c.rows) {
			s := string(r.Role) + ":" + r.Content
			for i, tc := range r.ToolCalls {
				s += map[bool]string{true: "+", false: ","}[i == 0] + tc.ID
			}
			got = append(got, s)
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%s: window\n%q\nwant\n%q", c.name, strings.Join(got, " "), c.want)
		}
	}
}

func TestReasoningGoesBackOnlyWithCallsAndOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	call := calls("c1")
	call.ReasoningBack = "thinking"
	answer := assistant("done")
	answer.ReasoningBack = "not sent"
	rows := []memory.Message{user("a"), call, result("c1"), answer}
	msgs := Context{System: "S", Rows: rows}.Build()
	if msgs[2].ReasoningContent != "thinking" || msgs[4].ReasoningContent != "" {
		t.Errorf("reasoning sent back: %q with the call, %q with the answer; want only the call's", msgs[2].ReasoningContent, msgs[4].ReasoningContent)
	}
	if msgs := (Context{System: "S", Rows: rows, DropReasoning: true}.Build()); msgs[2].ReasoningContent != "" {
		t.Error("reasoning sent back to a server that refuses it")
	}
}

func TestACallsExtraFieldsGoBackWithIt(t *testing.T) {
	t.Parallel()
	call := calls("c1")
	call.ToolCalls[0].Extra = json.RawMessage(`{"extra_content":{"google":{"thought_signature":"sig"}}}`)
	msgs := Context{System: "S", Rows: []memory.Message{user("a"), call, result("c1")}, DropReasoning: true}.Build()
	got := msgs[2].ToolCalls[0]
	if string(got.Extra["extra_content"]) != `{"google":{"thought_signature":"sig"}}` || got.Type != "function" || got.Function.Name != "echo" {
		t.Errorf("call sent as %+v", got)
	}
}

// The window is the newest rows that fit the token budget; the turn at hand
// is always there, and a cut never separates calls from their results.
func TestTheWindowFitsTheTokenBudget(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("word ", 300) // ~500 tokens estimated
	rows := []memory.Message{user(long), assistant(long), user("q"), calls("c1"), result("c1"), assistant(long), user("now")}
	roles := func(tokens int) string {
		var out []string
		for _, m := range (Context{System: "S", Rows: rows, Tokens: tokens}).Build() {
			out = append(out, m.Role)
		}
		return strings.Join(out, ",")
	}
	for tokens, want := range map[int]string{
		10:  "system,user",                                              // less than the turn at hand: it is kept all the same
		100: "system,user",                                              // room for the question alone
		700: "system,user,assistant,tool,assistant,user",                // the newest answer; the calls' question did not fit: a placeholder
		1e6: "system,user,assistant,user,assistant,tool,assistant,user", // no bound
		0:   "system,user,assistant,user,assistant,tool,assistant,user", // 0: no bound
	} {
		if got := roles(tokens); got != want {
			t.Errorf("a budget of %d tokens: %s, want %s", tokens, got, want)
		}
	}
}

func TestImagesAreShownWithTheirRowAndCountedAsImages(t *testing.T) {
	t.Parallel()
	first, photo, answer, next := user("look:"), user("[photo] what is it?"), assistant("a cat"), user("and its color?")
	first.ID, photo.ID, answer.ID, next.ID = 1, 2, 3, 4
	img := llm.Part{Type: "image_url", ImageURL: &llm.ImageURL{URL: "data:image/jpeg;base64," + strings.Repeat("A", 30000)}}
	c := Context{System: "sys", Rows: []memory.Message{first, photo, answer, next}, Images: map[int64][]llm.Part{2: {img}}}
	msgs := c.Build()
	if got := shape(t, msgs); !strings.HasPrefix(got, "system:sys | user: | assistant:a cat | user:and its color?") {
		t.Fatalf("request %s", got)
	}
	parts := msgs[1].Parts
	if len(parts) != 3 || parts[0].Text != "look:" || parts[1].Text != "[photo] what is it?" || parts[2].ImageURL == nil {
		t.Fatalf("the merged user message = %+v; want the two texts, then the image", msgs[1])
	}
	if n := CountImages(llm.Request{Messages: msgs}); n != 1 {
		t.Errorf("CountImages = %d, want 1", n)
	}
	// 30,000 bytes of data URL would be estimated at 10,000 tokens.
	if n := EstimatePrompt(llm.Request{Messages: msgs}); n < TokensPerImage || n > 2*TokensPerImage {
		t.Errorf("a request with one image is estimated at %d tokens, want about %d", n, TokensPerImage)
	}
	c.Tokens = 1000 // room for less than the image: its row is left out
	if msgs := c.Build(); len(msgs) != 2 || msgs[1].Content != "and its color?" {
		t.Errorf("with room for the question only, the request is %+v", msgs)
	}
	c.Tokens = 3000
	if msgs := c.Build(); len(msgs) != 4 {
		t.Errorf("with room for the image, the request has %d messages", len(msgs))
	}
	plain := WithoutImages(c.Build())
	if plain[1].Parts != nil || plain[1].Content != "look:\n\n[photo] what is it?\n\n"+ImageOmitted {
		t.Errorf("without images the message is %+v", plain[1])
	}
}

func TestEstimates(t *testing.T) {
	t.Parallel()
	if got := EstimateTokens(strings.Repeat("я", 30)); got != 21 { // 60 bytes
		t.Errorf("EstimateTokens of 30 Cyrillic letters = %d, want 21", got)
	}
	r := &llm.Response{Message: llm.Message{Content: strings.Repeat("a", 30),
		ToolCalls: []llm.ToolCall{{Function: llm.FunctionCall{Name: "abc", Arguments: strings.Repeat("b", 9)}}}}, Reasoning: strings.Repeat("c", 6)}
	if got := EstimateAnswer(r); got != 11+3+2+4 {
		t.Errorf("EstimateAnswer = %d, want %d (content, reasoning, name, arguments)", got, 11+3+2+4)
	}
	for _, c := range [][3]string{{"", "b", "b"}, {"a", "", "a"}, {"a", "b", "a\n\nb"}, {"", "", ""}} {
		if got := JoinText(c[0], c[1]); got != c[2] {
			t.Errorf("JoinText(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}

// A conversation whose first question went unanswered, with a note: the
// note joins the system message and the two questions become one.
func ExampleContext_Build() {
	rows := []memory.Message{user("Hi"), note("Tools used: calculator"), user("What is 6*7?")}
	for _, m := range (Context{System: "You are membot.", Rows: rows, DropReasoning: true}).Build() {
		fmt.Printf("%s: %q\n", m.Role, m.Content)
	}
	// Output:
	// system: "You are membot.\n\nNotes recorded in this conversation, oldest first:\n- Tools used: calculator"
	// user: "Hi\n\nWhat is 6*7?"
}
