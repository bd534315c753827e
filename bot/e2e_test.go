package bot_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/internal/testing/openaifake"
)

func TestCommandsAnswerInTheUsersLanguage(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Start()
	if got := h.Say(ivan, "/start"); !strings.HasPrefix(got, "Привет, Иван!") {
		t.Errorf("/start for ru = %q", got)
	}
	if got := h.Say(jane, "/start"); !strings.HasPrefix(got, "Hello, Jane!") {
		t.Errorf("/start for en = %q", got)
	}
	if got := h.Say(jane, "/help"); !strings.Contains(got, "/new") {
		t.Errorf("/help = %q", got)
	}
	if got := h.Say(jane, "/frobnicate"); !strings.Contains(got, "/help") {
		t.Errorf("unknown command = %q", got)
	}
	if n := h.Count(`SELECT count(*) FROM users WHERE telegram_user_id IN (501, 502)`); n != 2 {
		t.Errorf("users rows = %d, want 2", n)
	}
	if len(h.LLM.Requests()) != 0 {
		t.Errorf("commands reached the model: %d requests", len(h.LLM.Requests()))
	}
}

func TestATurnWithAToolIsAnsweredAndStored(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.LLM.Script(
		openaifake.Reply{ToolCalls: []openai.ToolCall{openaifake.ToolCall("call_1", "calculator", `{"expression":"6*7"}`)}},
		openaifake.Reply{Content: "It is 42."},
	)
	h.Start()
	before := time.Now()
	if got := h.Say(jane, "what is 6*7?"); got != "It is 42." {
		t.Fatalf("reply = %q", got)
	}
	h.WaitIdle()

	// The model got the tool's result on its second call.
	reqs := h.LLM.Requests()
	if len(reqs) != 2 || len(reqs[0].Tools) < 2 {
		t.Fatalf("model calls = %d, tools offered = %d", len(reqs), len(reqs[0].Tools))
	}
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	if last.Role != "tool" || last.Content != "42" || last.ToolCallID != "call_1" {
		t.Fatalf("second call ends with %+v", last)
	}

	// The rows tell the whole story, in order.
	rows, _ := h.DB.Query(context.Background(), `SELECT m.role, m.content, coalesce(m.tool_calls::text, ''), coalesce(m.tool_name, ''),
		coalesce(m.telegram_message_id, 0) FROM messages m JOIN conversations c ON c.id = m.conversation_id
		WHERE c.chat_id = $1 ORDER BY m.id`, jane.ID)
	var got []string
	var userRow string
	var answerTelegramID int64
	for rows.Next() {
		var role, content, calls, tool string
		var tgID int64
		rows.Scan(&role, &content, &calls, &tool, &tgID)
		got = append(got, role+"|"+tool)
		switch {
		case role == "user":
			userRow = content
		case role == "assistant" && calls != "":
			if !strings.Contains(calls, `"name": "calculator"`) || !strings.Contains(calls, `6*7`) {
				t.Errorf("tool_calls = %s", calls)
			}
		case role == "tool" && content != "42":
			t.Errorf("tool row content = %q", content)
		case role == "assistant":
			answerTelegramID = tgID
		case role == "system" && content != "Tools used: calculator":
			t.Errorf("system row = %q", content)
		}
	}
	if want := "user| assistant| tool|calculator assistant| system|"; strings.Join(got, " ") != want {
		t.Fatalf("rows = %q, want %q", strings.Join(got, " "), want)
	}
	if answerTelegramID == 0 {
		t.Error("the answer row has no telegram_message_id")
	}
	stamp := regexp.MustCompile(`^\[Текущее время: (\d{4}-\d\d-\d\d \d\d:\d\d)\] what is 6\*7\?$`).FindStringSubmatch(userRow)
	if stamp == nil {
		t.Fatalf("user row = %q", userRow)
	}
	moscow, _ := time.LoadLocation("Europe/Moscow")
	at, _ := time.ParseInLocation("2006-01-02 15:04", stamp[1], moscow)
	if at.Before(before.Truncate(time.Minute).Add(-time.Minute)) || at.After(time.Now()) {
		t.Errorf("stamp %s is not Moscow's time now (%s)", stamp[1], time.Now().In(moscow).Format("2006-01-02 15:04"))
	}
}

func TestHistoryWindowNewAndRestart(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Start()
	for i := 1; i <= 40; i++ {
		if got, want := h.Say(jane, fmt.Sprintf("message %d", i)), fmt.Sprintf("echo: message %d", i); got != want {
			t.Fatalf("reply %d = %q, want %q", i, got, want)
		}
	}
	// The 40th call saw the system prompt and the newest 30 rows, oldest
	// first, but for the first: an answer whose question is outside the window.
	reqs := h.LLM.Requests()
	msgs := reqs[len(reqs)-1].Messages
	if msgs[0].Role != "system" || len(msgs) != 30 || !strings.HasSuffix(msgs[1].Content, "message 26") {
		t.Fatalf("the last call had %d messages, want 1 system + 29 from message 26 on", len(msgs))
	}
	var users []string
	for _, m := range msgs[1:] {
		if m.Role == "user" {
			users = append(users, m.Content[strings.Index(m.Content, "] ")+2:])
		}
	}
	if len(users) != 15 || users[0] != "message 26" || users[14] != "message 40" {
		t.Fatalf("user rows seen = %v", users)
	}

	// A restart keeps the conversation.
	h.Stop()
	h.Start()
	h.Say(jane, "after restart")
	reqs = h.LLM.Requests()
	msgs = reqs[len(reqs)-1].Messages
	if len(msgs) != 30 || !strings.HasSuffix(msgs[len(msgs)-3].Content, "message 40") {
		t.Fatalf("after restart the model saw %d messages ending %q", len(msgs), msgs[len(msgs)-3].Content)
	}

	// /new forgets everything of this chat, and the model sees none of it;
	// the purger deletes the old rows right after the answer.
	if got := h.Say(jane, "/new"); !strings.Contains(got, "start over") {
		t.Fatalf("/new = %q", got)
	}
	h.WaitCount(`SELECT count(*) FROM messages WHERE content LIKE '%message 1%'`, 0)
	h.Say(jane, "fresh start")
	reqs = h.LLM.Requests()
	msgs = reqs[len(reqs)-1].Messages
	if len(msgs) != 2 || !strings.HasSuffix(msgs[1].Content, "fresh start") {
		t.Fatalf("after /new the model saw %+v", msgs)
	}
	if n := h.Count(`SELECT count(*) FROM conversations WHERE chat_id = $1`, jane.ID); n != 1 {
		t.Fatalf("the chat has %d conversations, want 1", n)
	}
}

func TestModelFailureGetsAnApologyAndTheBotGoesOn(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.LLM.Script(openaifake.Reply{Status: 400}) // not retryable
	h.Start()
	if got := h.Say(ivan, "привет"); !strings.HasPrefix(got, "Извините") {
		t.Fatalf("reply after a model failure = %q", got)
	}
	if got := h.Say(ivan, "ещё раз"); got != "echo: ещё раз" {
		t.Fatalf("next reply = %q", got)
	}
}
