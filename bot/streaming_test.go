package bot_test

import (
	"github.com/membot/membot/internal/testing/wait"

	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/telegramfake"
)

// storedAnswer is the content and the delivery of the chat's last answer row.
func storedAnswer(h *harness, chatID int64) (content string, telegramID int64, telegramIDs []int64) {
	h.T.Helper()
	var ids []byte
	err := h.DB.QueryRow(context.Background(), `SELECT m.content, coalesce(m.telegram_message_id, 0),
		coalesce(m.metadata->'telegram_message_ids', '[]') FROM messages m JOIN conversations c ON c.id = m.conversation_id
		WHERE c.chat_id = $1 AND m.role = 'assistant' AND m.tool_calls IS NULL ORDER BY m.id DESC LIMIT 1`, chatID).
		Scan(&content, &telegramID, &ids)
	if err != nil {
		h.T.Fatalf("the stored answer: %v", err)
	}
	json.Unmarshal(ids, &telegramIDs)
	return content, telegramID, telegramIDs
}

func TestAStreamedAnswerInAGroupIsEditedIntoOneMessageEqualToTheStoredRow(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["STREAM_EDIT_INTERVAL"] = "150ms"
	answer := strings.Repeat("A streamed answer grows while the model writes it. ", 8)
	release := make(chan struct{})
	h.LLM.Script(openaifake.Reply{Content: answer, Hold: release, HoldAfter: 3}) // the role and two pieces, then a pause
	h.Start()

	const group = -100513
	update := h.TG.SendMessage(group, "group", jane, "@"+h.TG.Username+" tell me something")
	first, ok := h.TG.WaitFor(wait.Timeout(), func(sent []telegramfake.Sent) bool { return len(sent) > 0 })
	if !ok {
		t.Fatal("nothing was shown while the answer was being written")
	}
	if partial := first[0].Text; partial == "" || !strings.HasPrefix(answer, partial) || len(partial) >= len(answer) {
		t.Fatalf("the first message shows %q, want the beginning of the answer", partial)
	}
	if n := len(h.TG.Calls("sendChatAction")); n == 0 {
		t.Error("no typing indicator before the first text")
	}
	close(release)
	h.WaitDone(update)

	msgs := h.TG.Messages(group)
	if len(msgs) != 1 || msgs[0].Edits == 0 {
		t.Fatalf("the chat holds %d messages (edits %d), want one edited message", len(msgs), msgs[0].Edits)
	}
	if n := len(h.TG.Calls("sendMessageDraft")); n != 0 {
		t.Errorf("%d drafts in a group", n)
	}
	stored, telegramID, _ := storedAnswer(h, group)
	if stored != answer || msgs[0].Text != strings.TrimSpace(stored) || telegramID != msgs[0].ID {
		t.Fatalf("shown %q, stored %q (delivered as %d, message %d)", msgs[0].Text, stored, telegramID, msgs[0].ID)
	}
	if req := h.LLM.Requests()[0]; !req.Stream {
		t.Error("the model was not asked to stream")
	}
	// The edits kept their distance: each call at least the interval after
	// the one before (a lower bound, so a slow machine cannot break it).
	var calls []telegramfake.Call
	for _, c := range h.TG.Calls("") {
		if c.Method == "sendMessage" || c.Method == "editMessageText" {
			calls = append(calls, c)
		}
	}
	for i := 1; i < len(calls); i++ {
		if gap := calls[i].At.Sub(calls[i-1].At); gap < 150*time.Millisecond {
			t.Errorf("%s came %v after %s", calls[i].Method, gap, calls[i-1].Method)
		}
	}
}

func TestAStreamedAnswerLongerThanOneMessageContinuesInASecond(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	// 3,600 characters, which would fit one message, but 4,400 UTF-16 units
	// as Telegram counts them (each emoji is two), which do not.
	para := strings.Repeat("слово 😀😀 ", 100)
	answer := strings.TrimSpace(strings.Repeat(para+"\n\n", 4))
	h.LLM.Script(openaifake.Reply{Content: answer})
	h.Start()
	msgs := h.SayAll(jane, "a long one, please")
	if len(msgs) != 2 {
		t.Fatalf("the answer is in %d messages, want 2", len(msgs))
	}
	for i, m := range msgs {
		if n := len(utf16.Encode([]rune(m.Text))); n > 4096 {
			t.Errorf("message %d has %d UTF-16 units", i, n)
		}
	}
	stored, _, ids := storedAnswer(h, jane.ID)
	squash := func(s string) string { return strings.Join(strings.Fields(s), "") }
	if squash(msgs[0].Text+msgs[1].Text) != squash(stored) || stored != answer {
		t.Fatal("the two messages do not hold the stored answer")
	}
	if len(ids) != 2 || ids[0] != msgs[0].ID || ids[1] != msgs[1].ID {
		t.Fatalf("delivery recorded %v, want both messages", ids)
	}
}

func TestAStreamedToolCallWithFragmentedArgumentsRunsTheToolOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	scriptCalculatorTurn(h, "call_frag", `{"expression": "(6 * 7) + 1000 - 1000"}`, "It is 42.")
	h.Start()
	if got := h.Say(jane, "what is 6*7?"); got != "It is 42." {
		t.Fatalf("reply = %q", got)
	}
	if n := h.Count(`SELECT count(*) FROM messages WHERE role = 'tool' AND tool_name = 'calculator' AND content = '42'`); n != 1 {
		t.Fatalf("%d calculator rows, want 1", n)
	}
	calls := h.Count(`SELECT count(*) FROM messages WHERE role = 'assistant'
		AND tool_calls @> '[{"id": "call_frag", "name": "calculator", "arguments": "{\"expression\":\"(6 * 7) + 1000 - 1000\"}"}]'`) // stored canonical
	if calls != 1 {
		t.Fatal("the assembled tool call is not stored whole (in its canonical form)")
	}
	reqs := h.LLM.Requests()
	if len(reqs) != 2 || !reqs[0].Stream || !reqs[1].Stream {
		t.Fatalf("%d model calls", len(reqs))
	}
}

const markdownAnswer = "Use `a < b && c > d` in **Go**:\n\n```go\nif a < b && flag {\n\tfmt.Println(\"<&>\")\n}\n```\n\n" +
	"- snake_case_name stays as written\n- fish & chips, 3 > 2, <div> too"

func TestMarkdownAnswersRenderAsTelegramHTML(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.TG.NoRich(true) // with rich messages, its code block would make it one (rich_test.go)
	h.LLM.Script(openaifake.Reply{Content: markdownAnswer})
	h.Start()
	msg := h.SayAll(jane, "show me code")[0]
	for _, want := range []string{"Use a < b && c > d in Go:", "if a < b && flag {\n\tfmt.Println(\"<&>\")\n}",
		"• snake_case_name stays as written\n• fish & chips, 3 > 2, <div> too"} {
		if !strings.Contains(msg.Text, want) {
			t.Errorf("shown text lacks %q:\n%s", want, msg.Text)
		}
	}
	types := map[string]string{}
	for _, e := range msg.Entities {
		types[e.Type] = e.Language
	}
	if _, ok := types["code"]; !ok || types["pre"] != "go" || len(types) != 3 {
		t.Errorf("entities = %+v, want code, bold and a go block", msg.Entities)
	}
	if stored, _, _ := storedAnswer(h, jane.ID); stored != markdownAnswer {
		t.Errorf("the stored answer is not the model's Markdown: %q", stored)
	}
}

func TestARejectedFormattingFallsBackToThePlainText(t *testing.T) {
	t.Parallel()
	for _, streaming := range []string{"true", "false"} {
		t.Run("STREAMING="+streaming, func(t *testing.T) {
			h := newHarness(t)
			h.TG.NoRich(true) // the HTML path is the one refused
			h.Env["STREAMING"] = streaming
			html := func(c telegramfake.Call) bool { return c.Params["parse_mode"] == "HTML" }
			for _, method := range []string{"sendMessage", "editMessageText"} {
				h.TG.Inject(telegramfake.Fault{Method: method, Status: 400, Times: 1000, If: html,
					Message: "Bad Request: can't parse entities: Unsupported start tag \"x\" at byte offset 0"})
			}
			h.LLM.Script(openaifake.Reply{Content: markdownAnswer})
			h.Start()
			msgs := h.SayAll(jane, "show me code")
			if len(msgs) != 1 || msgs[0].Text != markdownAnswer || len(msgs[0].Entities) != 0 {
				t.Fatalf("the chat shows %+v, want the answer's own text, plain", msgs)
			}
			if streaming == "false" {
				if n := len(h.TG.Calls("editMessageText")); n != 0 || h.LLM.Requests()[0].Stream {
					t.Errorf("STREAMING=false streamed: %d edits", n)
				}
			}
		})
	}
}
