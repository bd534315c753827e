package bot_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/telegramfake"
	"github.com/membot/membot/internal/testing/testkit"
)

// startWithMCP starts the bot with the stdio MCP fake as the server "local".
func startWithMCP(t *testing.T) *harness {
	t.Helper()
	h := newHarness(t)
	withMCPServers(t, h, map[string]any{"local": stdioServer(t, nil)})
	h.Start()
	h.WaitLog(`msg="MCP server ready" mcp_server=local`)
	return h
}

// storedArguments is the arguments text the approval of callID keeps.
func storedArguments(h *harness, callID string) string {
	h.T.Helper()
	var args string
	if err := h.DB.QueryRow(context.Background(), `SELECT arguments FROM pending_approvals WHERE request_id = $1`, callID).Scan(&args); err != nil {
		h.T.Fatalf("the approval of %s: %v", callID, err)
	}
	return args
}

// message is the chat's message id as it stands now.
func message(h *harness, chatID, id int64) telegramfake.Message {
	h.T.Helper()
	for _, m := range h.TG.Messages(chatID) {
		if m.ID == id {
			return m
		}
	}
	h.T.Fatalf("no message %d in chat %d", id, chatID)
	return telegramfake.Message{}
}

// What the prompt shows is what the MCP server receives: the arguments
// parsed once and written once, the same bytes stored with the approval,
// shown (a nested object as its text) and sent, keys in the model's order.
func TestTheMCPServerGetsExactlyTheBytesTheApprovalShows(t *testing.T) {
	t.Parallel()
	h := startWithMCP(t)
	raw := "{ \"to\" : \"mom@example.com\",\n  \"cc\": {\"to\": \"mom@example.com\", \"name\": \"Mom\"},\n  \"note\": \"<b>hi</b> & \\u00e9\", \"n\": 1.50 }"
	canonical := `{"to":"mom@example.com","cc":{"to":"mom@example.com","name":"Mom"},"note":"<b>hi</b> & é","n":1.50}`
	prompt, approve, _ := askTool(h, jane, "call_args", "args", raw)
	for _, want := range []string{"to: mom@example.com\n", `cc: {"to":"mom@example.com","name":"Mom"}` + "\n", "note: <b>hi</b> & é\n", "n: 1.50\n\nAllow it?"} {
		if !strings.Contains(prompt.Text, want) {
			t.Fatalf("the request %q does not show %q", prompt.Text, want)
		}
	}
	if got := storedArguments(h, "call_args"); got != canonical {
		t.Fatalf("the approval keeps %q, want %q", got, canonical)
	}
	h.LLM.Script(openaifake.Reply{Content: "Sent."})
	if got := h.PressForReply(jane, prompt, approve); got.Text != "Sent." {
		t.Fatalf("after the approval the chat got %q", got.Text)
	}
	if content, _ := toolResult(h, "call_args"); content != "args: "+canonical {
		t.Fatalf("the server received %q, want %q", strings.TrimPrefix(content, "args: "), canonical)
	}
	// The model reads back its call as it ran.
	reqs := h.LLM.Requests()
	last := reqs[len(reqs)-1].Messages
	if call := last[len(last)-2]; len(call.ToolCalls) != 1 || call.ToolCalls[0].Function.Arguments != canonical {
		t.Fatalf("the model's call is sent back as %+v", call.ToolCalls)
	}
}

// Arguments that do not parse, or hold a key twice at any depth, are
// refused before anyone is asked: the model reads why, the user sees only
// its answer, and the server is never called.
func TestDuplicateKeysOrBadJSONAreRefusedWithoutAPrompt(t *testing.T) {
	t.Parallel()
	h := startWithMCP(t)
	for i, c := range []struct{ args, want string }{
		{`{"to":"mom@example.com","cc":{"to":"attacker@evil.example","to":"mom@example.com"}}`, `error: the key "to" comes twice in cc;`},
		{`{"to":"attacker@evil.example","to":"mom@example.com"}`, `error: the key "to" comes twice;`},
		{`{"list":[{"to":"a"},{"to":"b","to":"c"}]}`, `error: the key "to" comes twice in list[1];`},
		{`{"to": "mom@example.com"`, `error: the arguments are not valid JSON`},
		{`["mom@example.com"]`, `error: the arguments are not a JSON object`},
	} {
		callID := fmt.Sprintf("call_bad_%d", i)
		h.LLM.Script(openaifake.Reply{ToolCalls: []openai.ToolCall{openaifake.ToolCall(callID, "args", c.args)}},
			openaifake.Reply{Content: "I could not send it."})
		if got := h.Say(jane, "send it"); got != "I could not send it." {
			t.Fatalf("case %d: the chat got %q", i, got)
		}
		content, _ := toolResult(h, callID)
		if !strings.HasPrefix(content, c.want) || !strings.Contains(content, "did not run") {
			t.Fatalf("case %d: the model read %q, want %q…", i, content, c.want)
		}
		reqs := h.LLM.Requests()
		last := reqs[len(reqs)-1].Messages
		if result := last[len(last)-1]; result.Role != "tool" || result.Content != content {
			t.Fatalf("case %d: the model was given %+v", i, result)
		}
	}
	if n := h.Count(`SELECT count(*) FROM pending_approvals`); n != 0 {
		t.Fatalf("%d approvals asked for refused calls", n)
	}
	if n := h.Count(`SELECT count(*) FROM messages WHERE role = 'tool' AND content LIKE 'args:%'`); n != 0 {
		t.Fatal("the server was called")
	}
}

// A value cannot hide or reorder what the prompt says, nor pass for its
// question: control, bidi and zero-width characters are shown escaped,
// newlines too, in both languages.
func TestAnApprovalShowsHiddenCharactersEscaped(t *testing.T) {
	t.Parallel()
	h := startWithMCP(t)
	for _, c := range []struct {
		user     telegramfake.User
		question string
	}{{jane, "Allow it?"}, {ivan, "Разрешить?"}} {
		value := "invoice\u202efdp.exe pay\u200b\u200dpal\ufeff ok" + strings.Repeat("\n", 40) + c.question
		args := fmt.Sprintf(`{"text":%q,"to\u2066":"x"}`, value)
		prompt, _, _ := askTool(h, c.user, "call_hidden_"+c.user.Username, "echo", args)
		want := `text: invoice\u202efdp.exe pay\u200b\u200dpal\ufeff ok` + strings.Repeat(`\n`, 40) + c.question
		if !strings.Contains(prompt.Text, want) || !strings.Contains(prompt.Text, `to\u2066: x`) {
			t.Fatalf("the request = %q, without %q", prompt.Text, want)
		}
		// The lines: the reason it asks (the server's descriptions are
		// outside text), the question, the server, two arguments.
		if strings.ContainsAny(prompt.Text, "\u202e\u200b\u200d\ufeff\u2066") || strings.Count(prompt.Text, "\n") > 8 ||
			strings.Count(prompt.Text, c.question) != 2 || !strings.HasSuffix(prompt.Text, "\n\n"+c.question) {
			t.Fatalf("the request shows hidden characters or breaks the lines: %q", prompt.Text)
		}
	}
}

// A long value is cut in the prompt, with how much is left out; the Show
// whole button sends the call whole, as it runs, to who may decide it,
// and the approved call runs whole.
func TestALongCallIsCutAndShownWholeByItsButton(t *testing.T) {
	t.Parallel()
	h := startWithMCP(t)
	long := strings.Repeat("word ", 2000) // 10,000 characters
	h.LLM.Script(openaifake.Reply{ToolCalls: []openai.ToolCall{openaifake.ToolCall("call_long", "echo", `{"text":"`+long+`"}`)}})
	before := len(h.TG.SentTo(jane.ID))
	h.TG.SendText(jane, "echo a lot")
	prompt := h.NextTo(jane.ID, before, "the request")
	buttons := prompt.Buttons()
	if len(buttons) != 3 || buttons[2].Text != "📄 Show whole" || !strings.HasPrefix(buttons[2].Data, "whole:") {
		t.Fatalf("the request has buttons %+v", buttons)
	}
	if !strings.Contains(prompt.Text, "text: "+long[:300]+"… (9700 more characters)\n\nAllow it?") {
		t.Fatalf("the request = %q", prompt.Text)
	}

	// Someone who may not decide it gets nothing.
	mallory := telegramfake.User{ID: 666, FirstName: "Mallory", LanguageCode: "en"}
	if got := h.Press(mallory, prompt, buttons[2].Data); got != "This button is not yours." {
		t.Fatalf("a stranger's press = %q", got)
	}
	h.WaitIdle()
	n := len(h.TG.Messages(jane.ID))
	h.Press(jane, prompt, buttons[2].Data)
	whole := h.NextTo(jane.ID, n, "the whole call")
	canonical := `{"text":"` + long + `"}`
	if whole.Document == nil || whole.Document.Name != "arguments.json" || whole.Document.Content != canonical ||
		whole.ReplyTo != prompt.ID || !strings.Contains(whole.Document.Caption, "The whole call of echo") {
		t.Fatalf("Show whole sent %+v", whole)
	}
	if got := storedArguments(h, "call_long"); got != canonical {
		t.Fatalf("the approval keeps %d bytes, not the call", len(got))
	}

	h.LLM.Script(openaifake.Reply{Content: "Echoed."})
	if got := h.PressForReply(jane, prompt, buttons[0].Data); got.Text != "Echoed." {
		t.Fatalf("after the approval the chat got %q", got.Text)
	}
	if content, _ := toolResult(h, "call_long"); content != "echo: "+long {
		t.Fatalf("the server echoed %d characters, want %d", len(content), len("echo: "+long))
	}
	// Decided, the message keeps the cut call and its Show whole button.
	closed := message(h, jane.ID, prompt.ID)
	if !strings.Contains(closed.Text, "… (9700 more characters)") || !strings.Contains(closed.Text, "✅ Approved at ") ||
		len(closed.Buttons()) != 1 || closed.Buttons()[0].Data != buttons[2].Data {
		t.Fatalf("the decided request = %q with %+v", closed.Text, closed.Buttons())
	}

	// In Russian, with many arguments: the last ones are counted, not dropped.
	args := "{"
	for i := range 30 {
		args += fmt.Sprintf(`"key%02d":"%s",`, i, strings.Repeat("я", 200))
	}
	args = strings.TrimSuffix(args, ",") + "}"
	prompt, _, _ = askToolCut(h, ivan, "call_many", "echo", args)
	if !strings.Contains(prompt.Text, "key00: "+strings.Repeat("я", 200)+"\n") || !strings.Contains(prompt.Text, "символов)\n\nРазрешить?") ||
		len([]rune(prompt.Text)) > 3300 || prompt.Buttons()[2].Text != "📄 Показать целиком" {
		t.Fatalf("the request = %q", prompt.Text)
	}
}

// askToolCut is askTool for a call shown cut: three buttons.
func askToolCut(h *harness, user telegramfake.User, callID, tool, args string) (prompt telegramfake.Message, approve, reject string) {
	h.T.Helper()
	h.LLM.Script(openaifake.Reply{ToolCalls: []openai.ToolCall{openaifake.ToolCall(callID, tool, args)}})
	before := len(h.TG.SentTo(user.ID))
	h.TG.SendText(user, "please use "+tool)
	prompt = h.NextTo(user.ID, before, "the request to use "+tool)
	if b := prompt.Buttons(); len(b) != 3 {
		h.T.Fatalf("the request %q has buttons %+v", prompt.Text, b)
	}
	return prompt, prompt.Buttons()[0].Data, prompt.Buttons()[1].Data
}

// An approval pressed after a restart that left its tool out: the message
// says the call did not run, and why, never that it was approved; the
// model reads that it did not run.
func TestAnApprovedCallWhoseToolIsGoneSaysItDidNotRun(t *testing.T) {
	t.Parallel()
	h := startWithMCP(t)
	prompt, approve, _ := askTool(h, jane, "call_gone", "echo", `{"text":"still here"}`)
	h.Stop()
	delete(h.Env, "MCP_SERVERS")
	h.Start()
	h.LLM.Script(openaifake.Reply{Content: "The tool is gone."})
	if got := h.PressForReply(jane, prompt, approve); !strings.HasPrefix(got.Text, "The tool is gone.") {
		t.Fatalf("after the approval the chat got %q", got.Text)
	}
	closed := message(h, jane.ID, prompt.ID)
	if !strings.Contains(closed.Text, "text: still here") || strings.Contains(closed.Text, "Approved") ||
		!strings.Contains(closed.Text, "⛔ Not run: the tool echo is not available now") || len(closed.Buttons()) != 0 {
		t.Fatalf("the decided request = %q", closed.Text)
	}
	if content, _ := toolResult(h, "call_gone"); !strings.HasPrefix(content, "Not run: no server offers the tool any more") {
		t.Fatalf("the model read %q", content)
	}
}

// A secret the model writes into a call is taken out of it, as out of
// every row: the approval keeps, shows and runs the call without it.
func TestASecretInACallIsNotKeptShownOrSent(t *testing.T) {
	t.Parallel()
	h := startWithMCP(t)
	prompt, approve, _ := askTool(h, jane, "call_secret", "args", `{"key":"`+testkit.APIKey+`"}`)
	if strings.Contains(prompt.Text, testkit.APIKey) || !strings.Contains(prompt.Text, "key: <redacted>") {
		t.Fatalf("the request = %q", prompt.Text)
	}
	if n := h.Count(`SELECT count(*) FROM pending_approvals t WHERE strpos(t::text, $1) > 0`, testkit.APIKey); n != 0 {
		t.Fatal("the approval keeps the secret")
	}
	h.LLM.Script(openaifake.Reply{Content: "Done."})
	h.PressForReply(jane, prompt, approve)
	if content, _ := toolResult(h, "call_secret"); content != `args: {"key":"<redacted>"}` {
		t.Fatalf("the server received %q", content)
	}
}
