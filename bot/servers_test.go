package bot_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/internal/testing/openaifake"
)

// The real bot against every model server dialect: a turn with a tool
// call, a turn whose model call fails (the apology), a streamed answer
// after it. The thinking never reaches the chat, every call's tokens are
// counted (estimated where the server sends no usage), and every request
// holds the role invariant (TestMain).
func TestAConversationAgainstEveryModelServer(t *testing.T) {
	t.Parallel()
	for _, d := range openaifake.Dialects {
		t.Run(d.Name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			fake := openaifake.NewDialect(d)
			t.Cleanup(fake.Close)
			fake.RespondWith(openaifake.ThinkingModel)
			h.LLM, h.Env["OPENAI_BASE_URL"] = fake, fake.URL()
			h.Start()

			got := h.Say(jane, "please calculate 6*7")
			if d.ToolsRefused == nil && got != "The result is 42." {
				t.Fatalf("the tool turn answered %q", got)
			}
			if d.ToolsRefused != nil && !strings.Contains(got, "cannot use tools") {
				t.Fatalf("a model without tools answered %q without saying so", got)
			}
			if got := h.Say(jane, "now fail"); !strings.HasPrefix(got, "Sorry, I couldn't get an answer") {
				t.Fatalf("the failing turn answered %q", got)
			}
			if got := h.Say(jane, "hello again"); got != "echo: hello again" {
				t.Fatalf("after the failure: %q", got)
			}
			// Not even for a moment while streaming; but a template that opens
			// <think> in the prompt shows the thinking until its </think> comes.
			for _, method := range []string{"sendMessage", "editMessageText"} {
				for _, c := range h.TG.Calls(method) {
					text := c.Params["text"]
					thinking := strings.Contains(text, "The tool said") || strings.Contains(text, "Nothing to do") || strings.Contains(text, "think>")
					if thinking && (d.Reasoning != "close-tag" || strings.Contains(text, "think>")) {
						t.Fatalf("the thinking reached the chat (%s): %q", method, text)
					}
				}
			}
			for _, text := range h.TG.SentTo(jane.ID) {
				if strings.Contains(text, "The tool said") || strings.Contains(text, "Nothing to do") {
					t.Fatalf("the thinking stayed in the chat: %q", text)
				}
			}
			h.WaitIdle()
			if n := h.Count(`SELECT count(*) FROM llm_calls WHERE status = 'ok' AND (prompt_tokens = 0 OR completion_tokens = 0)`); n != 0 {
				t.Fatalf("%d calls counted no tokens", n)
			}
			if got := h.Say(jane, "/usage"); !strings.Contains(got, fmt.Sprint(h.Count(`SELECT sum(prompt_tokens + completion_tokens)::int FROM llm_calls`))) {
				t.Fatalf("/usage = %q", got)
			}
		})
	}
}

// A hostile model: tool-call arguments past the bound are refused and not
// stored; an answer past MAX_ANSWER_TOKENS is cut, with a note; a response
// body past the bound gets the apology.
func TestAHostileModelIsBounded(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["MAX_ANSWER_TOKENS"] = "100" // read up to 1,600 bytes
	huge := `{"content": "` + strings.Repeat("x", 200<<10) + `"}`
	h.LLM.Script(
		openaifake.Reply{ToolCalls: []openai.ToolCall{openaifake.ToolCall("call_big", "remember", huge)}},
		openaifake.Reply{Content: "I could not."},
		openaifake.Reply{Content: strings.Repeat("blah ", 1000)},
	)
	h.Start()
	if got := h.Say(jane, "remember this"); got != "I could not." {
		t.Fatalf("reply = %q", got)
	}
	if n := h.Count(`SELECT count(*) FROM messages WHERE length(tool_calls::text) > 1000 OR length(content) > 10000`); n != 0 {
		t.Fatalf("%d rows keep the oversized arguments", n)
	}
	if n := h.Count(`SELECT count(*) FROM messages WHERE role = 'tool' AND content LIKE 'error: the arguments of this call were longer than allowed%'`); n != 1 {
		t.Fatal("the model was not told its call was refused")
	}
	if n := h.Count(`SELECT count(*) FROM memories`); n != 0 {
		t.Fatal("the oversized call ran")
	}
	got := h.Say(jane, "talk a lot")
	if !strings.HasSuffix(got, "The answer was cut off: it reached the length limit.") || len(got) > 1700 {
		t.Fatalf("a runaway answer gave %d bytes: ...%q", len(got), got[max(0, len(got)-80):])
	}
}

// /model: the chat chooses among MODELS, each with its server; the choice
// is the conversation's, recorded in model_switches, kept by /new, and
// llm_calls tells the models' usage apart.
func TestModelSwitchesTheChatsModelAndServer(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	local := openaifake.NewDialect(openaifake.DialectNamed("ollama-old"))
	t.Cleanup(local.Close)
	h.Env["MODELS"] = "test-model, gemma3:4b " + local.URL() + " no-tools"
	h.Start()

	if got := h.Say(ivan, "/model"); !strings.Contains(got, "✓ test-model") || !strings.Contains(got, "• gemma3:4b") {
		t.Fatalf("/model = %q", got)
	}
	list := h.Last(ivan.ID)
	if !strings.Contains(list.ReplyMarkup, `"callback_data":"model:1"`) {
		t.Fatalf("/model buttons: %s", list.ReplyMarkup)
	}
	if got := h.Press(ivan, list, "model:1"); got != "Модель: gemma3:4b" {
		t.Fatalf("the press was answered %q", got)
	}
	got := h.Say(ivan, "привет")
	if !strings.HasPrefix(got, "echo: привет") || !strings.Contains(got, "не умеет вызывать инструменты") {
		t.Fatalf("gemma3:4b answered %q", got)
	}
	if reqs := local.Requests(); len(reqs) != 1 || reqs[0].Model != "gemma3:4b" || len(reqs[0].Tools) != 0 {
		t.Fatalf("the local server got %d requests", len(reqs))
	}
	h.Say(ivan, "/new")
	if got := h.Say(ivan, "снова"); got != "echo: снова" || len(local.Requests()) != 2 {
		t.Fatalf("after /new: %q, %d requests to the local server", got, len(local.Requests()))
	}
	if got := h.Say(ivan, "/model test-model"); got != "Модель: test-model. Она отвечает с вашего следующего сообщения." {
		t.Fatalf("/model test-model = %q", got)
	}
	if got := h.Say(ivan, "/model test-model"); got != "Модель уже test-model." {
		t.Fatalf("again = %q", got)
	}
	if got := h.Say(ivan, "/model gpt-17"); !strings.Contains(got, "Модели «gpt-17» нет") {
		t.Fatalf("an unknown model = %q", got)
	}
	h.Say(ivan, "и ещё")
	h.WaitIdle()
	// The switch before /new went with its conversation.
	if n := h.Count(`SELECT count(*) FROM model_switches WHERE chat_id = $1 AND from_model = 'gemma3:4b' AND to_model = ''
		AND reason = 'command' AND conversation_id = (SELECT id FROM conversations WHERE chat_id = $1 AND reset_at IS NULL)`, ivan.ID); n != 1 {
		t.Fatalf("%d switches back to the default recorded, want 1", n)
	}
	if n := h.Count(`SELECT count(DISTINCT model) FROM llm_calls WHERE chat_id = $1`, ivan.ID); n != 2 {
		t.Fatalf("llm_calls has %d models, want 2", n)
	}
}

// SHOW_REASONING=collapsed: the thinking follows the answer in an
// expandable quote; off (the default, see the dialect test) it is not shown.
func TestShowReasoningCollapsed(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["SHOW_REASONING"] = "collapsed"
	h.LLM = openaifake.NewDialect(openaifake.DialectNamed("llamacpp")) // reasoning_content
	t.Cleanup(h.LLM.Close)
	h.Env["OPENAI_BASE_URL"] = h.LLM.URL()
	h.LLM.Script(openaifake.Reply{Reasoning: "2 and 2 <make> 4", Content: "Four."})
	h.Start()
	if got := h.Say(jane, "2+2?"); got != "Four." {
		t.Fatalf("reply = %q", got)
	}
	h.WaitIdle()
	msgs := h.TG.Messages(jane.ID)
	if len(msgs) != 2 || msgs[1].Text != "💭 How the model thought about it\n2 and 2 <make> 4" {
		t.Fatalf("messages = %+v", msgs)
	}
	var quoted bool
	for _, e := range msgs[1].Entities {
		quoted = quoted || e.Type == "expandable_blockquote"
	}
	if !quoted || msgs[1].ReplyTo != msgs[0].ID {
		t.Fatalf("the thinking is not a collapsed reply to the answer: %+v", msgs[1])
	}
}

// A server that sends no usage in streams (old Ollama): the tokens are
// estimated, marked so and warned about once, and DAILY_TOKEN_LIMIT counts them.
func TestEstimatedUsageCountsTowardsTheDailyLimit(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.LLM = openaifake.NewDialect(openaifake.DialectNamed("ollama-old"))
	t.Cleanup(h.LLM.Close)
	h.Env["OPENAI_BASE_URL"] = h.LLM.URL()
	h.Env["DAILY_TOKEN_LIMIT"] = "500" // the system prompt alone is estimated at about 400
	h.Start()
	h.Say(jane, "one")
	h.Say(jane, "two")
	if got := h.Say(jane, "three"); !strings.Contains(got, "limit of 500 tokens") {
		t.Fatalf("over the limit the reply is %q", got)
	}
	h.WaitIdle()
	if n := h.Count(`SELECT count(*) FROM llm_calls WHERE status = 'ok' AND usage_estimated AND prompt_tokens > 300`); n != 2 {
		t.Fatalf("%d calls with estimated usage, want 2", n)
	}
	if n := strings.Count(h.Logs.String(), "the model server sent no usage"); n != 1 {
		t.Fatalf("warned %d times, want once", n)
	}
}

// A refusal that will never succeed (a 4xx membot cannot learn from) is
// not retried: one call, then the apology.
func TestAPermanentRefusalIsNotRetried(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.LLM.Script(openaifake.Reply{Status: 422})
	h.Start()
	if got := h.Say(jane, "hello"); !strings.HasPrefix(got, "Sorry, I couldn't get an answer") {
		t.Fatalf("reply = %q", got)
	}
	if n := len(h.LLM.Requests()); n != 1 {
		t.Fatalf("%d model calls, want 1", n)
	}
}
