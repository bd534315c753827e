package bot_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/membot/membot/internal/testing/telegramfake"
)

func TestAllowlistServesOnlyAllowedPeopleAndRefusesOthersOnceADay(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	const group = -100777
	h.Env["ALLOWED_USER_IDS"] = fmt.Sprint(jane.ID)
	h.Env["ALLOWED_CHAT_IDS"] = fmt.Sprint(group)
	h.Start()

	got := h.Say(ivan, "привет, расскажи секрет")
	if !strings.Contains(got, "закрытый бот") || !strings.Contains(got, fmt.Sprint(ivan.ID)) {
		t.Fatalf("refusal = %q, want the Russian refusal with his id", got)
	}
	// The rest of the day he gets no answer at all, commands included.
	h.TG.SendText(ivan, "/start")
	h.TG.SendText(ivan, "ну пожалуйста")
	if got := h.Say(jane, "hello"); got != "echo: hello" {
		t.Fatalf("allowed user got %q", got)
	}
	h.WaitIdle()
	if sent := h.TG.SentTo(ivan.ID); len(sent) != 1 {
		t.Fatalf("the refused user got %d messages, want the one refusal: %q", len(sent), sent)
	}

	// Nothing of his reached the model, the messages table or the users table.
	for _, req := range h.LLM.Requests() {
		for _, m := range req.Messages {
			if strings.Contains(m.Content, "секрет") || strings.Contains(m.Content, "пожалуйста") {
				t.Fatalf("the model saw the refused user's text: %q", m.Content)
			}
		}
	}
	if n := len(h.LLM.Requests()); n != 1 {
		t.Fatalf("model calls = %d, want 1 (the allowed user's)", n)
	}
	if n := h.Count(`SELECT count(*) FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE c.chat_id = $1`, ivan.ID); n != 0 {
		t.Fatalf("%d message rows of the refused user", n)
	}
	if n := h.Count(`SELECT count(*) FROM users WHERE telegram_user_id = $1`, ivan.ID); n != 0 {
		t.Fatal("the refused user got a users row")
	}
	// What is kept: the refusal, counted, and the access_denied events.
	if n := h.Count(`SELECT attempts FROM access_refusals WHERE telegram_user_id = $1`, ivan.ID); n != 3 {
		t.Fatalf("refusal attempts = %d, want 3", n)
	}
	if n := h.Count(`SELECT count(*) FROM events WHERE type = 'access_denied' AND telegram_user_id = $1`, ivan.ID); n != 3 {
		t.Fatalf("access_denied events = %d, want 3", n)
	}

	// An allowed group serves whoever writes in it.
	before := len(h.TG.SentTo(group))
	h.WaitDone(h.TG.SendMessage(group, "supergroup", ivan, "@membot_test_bot hi from the group"))
	if sent := h.TG.SentTo(group); len(sent) <= before || !strings.Contains(sent[before], "hi from the group") {
		t.Fatalf("no answer in the allowed group: %q", sent)
	}

	// A button pressed by someone not allowed is refused with a notice.
	h.TG.AddUpdate("callback_query", map[string]any{"id": "cb-1", "from": ivan, "data": "anything:1",
		"message": map[string]any{"message_id": 5, "date": 0, "chat": map[string]any{"id": ivan.ID, "type": "private"}}})
	h.WaitIdle()
	calls := h.TG.Calls("answerCallbackQuery")
	if len(calls) != 1 || calls[0].Params["callback_query_id"] != "cb-1" || !strings.Contains(calls[0].Params["text"], "закрытый бот") {
		t.Fatalf("answerCallbackQuery calls = %+v", calls)
	}
	if strings.Contains(h.Logs.String(), "open to everyone") {
		t.Error("the open-bot warning was logged although an allowlist is set")
	}
	// Of his updates only ids are kept: no text, no name.
	// (The group served him: that update is kept whole.)
	if n := h.Count(`SELECT count(*) FROM updates WHERE chat_id <> $2 AND (payload::text LIKE '%секрет%' OR payload::text LIKE '%пожалуйста%'
		OR payload::text LIKE '%' || $1 || '%' OR payload::text LIKE '%anything:1%')`, ivan.FirstName, group); n != 0 {
		t.Errorf("%d stored updates keep what the refused user wrote or his name", n)
	}
	if n := h.Count(`SELECT count(*) FROM updates WHERE chat_id = $1 AND (payload->'message'->'from'->>'id')::bigint = $1`, ivan.ID); n != 3 {
		t.Errorf("%d of his 3 refused messages kept their ids", n)
	}
}

func TestAnOpenBotWarnsAtStart(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Start()
	h.WaitLog(`level=WARN msg="the bot is open to everyone`)
	h.WaitLog(`msg="membot is running"`)
}

func TestDailyTokenLimitStopsAUserAtTheLimit(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["DAILY_TOKEN_LIMIT"] = "30"
	h.Env["ADMIN_USER_IDS"] = fmt.Sprint(ivan.ID)
	h.Start()

	// The fake charges 10 prompt tokens per message sent to it, and
	// len(answer)/4+1 completion tokens: 20+3, then 40+3.
	h.Say(jane, "one")
	h.Say(jane, "two")
	got := h.Say(jane, "three")
	if !strings.Contains(got, "limit of 30 tokens") || !strings.Contains(got, "Europe/Moscow") {
		t.Fatalf("over the limit the reply is %q", got)
	}
	if n := len(h.LLM.Requests()); n != 2 {
		t.Fatalf("model calls = %d, want 2: the third message must not reach the model", n)
	}
	if n := h.Count(`SELECT count(*) FROM messages WHERE content LIKE '%three'`); n != 0 {
		t.Fatal("the refused message was stored")
	}
	if n := h.Count(`SELECT sum(total_tokens) FROM llm_calls WHERE telegram_user_id = $1`, jane.ID); n != 66 {
		t.Fatalf("llm_calls tokens = %d, want 66", n)
	}
	// The tokens on the assistant rows and in llm_calls agree.
	if n := h.Count(`SELECT sum((metadata->>'prompt_tokens')::int + (metadata->>'completion_tokens')::int) FROM messages WHERE role = 'assistant'`); n != 66 {
		t.Fatalf("assistant rows' tokens = %d, want 66", n)
	}
	if n := h.Count(`SELECT count(*) FROM events WHERE type = 'rate_limited' AND payload->>'limit' = 'tokens' AND telegram_user_id = $1`, jane.ID); n != 1 {
		t.Fatalf("rate_limited events = %d", n)
	}

	// Commands still work at the limit, and /usage says where she stands:
	// the messages she sent that were handled (not the refused one, nor
	// the commands) and the tokens.
	usage := h.Say(jane, "/usage")
	if !strings.Contains(usage, "Today: messages: 2, tokens: 66 of 30 a day") || !strings.Contains(usage, "This month: messages: 2, tokens: 66") {
		t.Fatalf("/usage = %q", usage)
	}
	// /retry would write a new answer: it is stopped like a message, and
	// the answer it would replace stays.
	if got := h.Say(jane, "/retry"); !strings.Contains(got, "limit of 30 tokens") {
		t.Fatalf("/retry over the limit got %q", got)
	}
	if n := len(h.LLM.Requests()); n != 2 {
		t.Fatalf("model calls = %d after /retry over the limit, want 2", n)
	}
	if n := h.Count(`SELECT count(*) FROM messages WHERE role = 'assistant' AND content = 'echo: two'`); n != 1 {
		t.Fatalf("the last answer was taken back by a refused /retry (%d left)", n)
	}

	// An admin is never limited.
	for i := range 3 {
		if got := h.Say(ivan, fmt.Sprint("вопрос ", i)); !strings.HasPrefix(got, "echo: ") {
			t.Fatalf("admin's message %d got %q", i, got)
		}
	}
}

func TestRateLimitAnswersOnceAndSkipsTheRest(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["RATE_LIMIT_PER_MINUTE"] = "2"
	h.Start()
	h.Say(jane, "a")
	h.Say(jane, "b")
	if got := h.Say(jane, "c"); !strings.Contains(got, "at most 2 messages a minute") {
		t.Fatalf("third message in a minute got %q", got)
	}
	h.TG.SendText(jane, "d") // within the same minute: no second notice
	h.WaitIdle()
	if sent := h.TG.SentTo(jane.ID); len(sent) != 3 {
		t.Fatalf("sent %d messages, want 3: %q", len(sent), sent)
	}
	if n := len(h.LLM.Requests()); n != 2 {
		t.Fatalf("model calls = %d, want 2", n)
	}
	if n := h.Count(`SELECT count(*) FROM events WHERE type = 'rate_limited' AND payload->>'limit' = 'rate'`); n != 2 {
		t.Fatalf("rate_limited events = %d, want 2", n)
	}
}

// Button presses pass the same gate as text: over DAILY_TOKEN_LIMIT,
// Approve (which goes on with a turn of the model) is stopped, however
// often it is pressed, and the request stays pending.
func TestApprovePressesOverTheTokenLimitCallNoModel(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["DAILY_TOKEN_LIMIT"] = "1" // the first model call uses it up
	h.Env["FETCH_ALLOW_PRIVATE"] = "true"
	url, hits := menuPage(t)
	h.Start()
	prompt, approve, _ := askToFetch(h, jane, url, "call_budget")
	calls := len(h.LLM.Requests())
	for range 5 {
		h.Press(jane, prompt, approve)
	}
	h.WaitIdle()
	if n := len(h.LLM.Requests()); n != calls {
		t.Fatalf("model calls went from %d to %d with the user over the limit", calls, n)
	}
	if hits.Load() != 0 {
		t.Fatal("the page was fetched")
	}
	if n := h.Count(`SELECT count(*) FROM pending_approvals WHERE status = 'pending'`); n != 1 {
		t.Fatalf("%d pending approvals, want the request still pending", n)
	}
	if !strings.Contains(strings.Join(h.Shown(jane.ID), "\n"), "limit of 1 token.") { // one plural helper: not "1 tokens"
		t.Errorf("the chat shows %q; want the limit told", h.Shown(jane.ID))
	}
}

// In a group, commands that change or show what everyone shares are for
// the group's admins: a member's /undo, /new or /mode is refused and
// changes nothing; an admin's goes through.
func TestInAGroupOnlyAdminsUndoResetOrSwitch(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Start()
	const group = -100888
	bot := "@" + h.TG.Username
	h.TG.SetMember(group, ivan.ID, "administrator")
	say := func(from telegramfake.User, text string) string { return h.SayIn(group, "supergroup", from, text) }

	say(ivan, bot+" a message of the admin")
	// /history names each member as the group's rows do, not "You".
	if got := say(jane, "/history@"+h.TG.Username); !strings.Contains(got, "Иван (@ivan): "+bot+" a message of the admin") ||
		strings.Contains(got, "You:") {
		t.Errorf("a group's /history = %q", got)
	}
	for _, cmd := range []string{"/undo", "/new", "/retry", "/mode concise", "/export"} {
		if got := say(jane, cmd+"@"+h.TG.Username); !strings.Contains(got, "for the group's admins") {
			t.Errorf("a member's %s answered %q", cmd, got)
		}
	}
	if n := h.Count(`SELECT count(*) FROM messages m JOIN conversations c ON c.id = m.conversation_id
		WHERE c.chat_id = $1 AND c.reset_at IS NULL AND m.role = 'user' AND m.content LIKE '%a message of the admin'`, group); n != 1 {
		t.Fatalf("the member's commands took the admin's message away (%d left)", n)
	}
	if n := h.Count(`SELECT count(*) FROM mode_switches WHERE chat_id = $1`, group); n != 0 {
		t.Fatalf("a member switched the group's mode")
	}
	// Reminders and approvals: a member reaches their own, an admin any.
	if _, err := h.DB.Exec(context.Background(), `INSERT INTO reminders (telegram_user_id, chat_id, text, due_at) VALUES
		($1, $3, 'the admin''s', now() + interval '1 hour'), ($2, $3, 'Jane''s', now() + interval '2 hours')`, ivan.ID, jane.ID, group); err != nil {
		t.Fatal(err)
	}
	if _, err := h.DB.Exec(context.Background(), `INSERT INTO pending_approvals (request_id, subject, details, telegram_user_id, chat_id)
		VALUES ('c-ivan', 'fetch_url', '{"url": "https://ivan.example/"}', $1, $2)`, ivan.ID, group); err != nil {
		t.Fatal(err)
	}
	if got := say(jane, "/approvals@"+h.TG.Username); strings.Contains(got, "ivan.example") {
		t.Errorf("a member sees another's approval: %q", got)
	}
	if got := say(jane, "/cancel_reminder@"+h.TG.Username+" 1"); !strings.Contains(got, "only the reminders you set") {
		t.Errorf("a member cancelling the admin's reminder got %q", got)
	}
	if got := say(jane, "/cancel_reminder@"+h.TG.Username+" all"); !strings.Contains(got, "Jane's") || strings.Contains(got, "admin's") {
		t.Errorf("a member cancelling all got %q", got)
	}
	if n := h.Count(`SELECT count(*) FROM reminders WHERE chat_id = $1 AND status = 'pending'`, group); n != 1 {
		t.Errorf("%d reminders left, want the admin's", n)
	}
	if got := say(ivan, "/approvals@"+h.TG.Username); !strings.Contains(got, "ivan.example") {
		t.Errorf("the admin's /approvals = %q", got)
	}
	if got := say(ivan, "/undo@"+h.TG.Username); !strings.Contains(got, "Отменено") {
		t.Errorf("the admin's /undo answered %q", got)
	}
	if n := h.Count(`SELECT count(*) FROM messages m JOIN conversations c ON c.id = m.conversation_id
		WHERE c.chat_id = $1 AND c.reset_at IS NULL AND m.role = 'user' AND m.content LIKE '%a message of the admin'`, group); n != 0 {
		t.Errorf("the admin's /undo left the message")
	}
}
