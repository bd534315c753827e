package bot_test

import (
	"github.com/membot/membot/internal/testing/wait"

	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/telegramfake"
	"github.com/membot/membot/internal/testing/testkit"
)

func TestTelegramFloodControlAndServerErrorsAreRetriedAndAnswerOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.TG.Inject(telegramfake.Fault{Method: "sendMessage", Status: 429, RetryAfter: 1, Message: "Too Many Requests: retry after 1", Times: 1})
	h.TG.Inject(telegramfake.Fault{Method: "sendMessage", Status: 500, Message: "Internal Server Error", Times: 1})
	h.TG.Inject(telegramfake.Fault{Method: "getUpdates", Status: 502, Message: "Bad Gateway", Times: 2})
	h.Start()
	start := time.Now()
	if got := h.Say(jane, "hello"); got != "echo: hello" {
		t.Fatalf("reply = %q", got)
	}
	h.WaitIdle()
	if n := len(h.TG.Calls("sendMessage")); n != 3 {
		t.Errorf("sendMessage calls = %d, want 3 (429, 500, ok)", n)
	}
	if n := len(h.Shown(jane.ID)); n != 1 {
		t.Errorf("%d messages delivered, want 1", n)
	}
	if time.Since(start) < time.Second {
		t.Errorf("the 429's retry_after of 1 s was not waited out")
	}
}

func TestABlockedChatIsGivenUpAndTheBotGoesOn(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	var blocked atomic.Bool // the user has blocked the bot: every send to them fails
	blocked.Store(true)
	h.TG.Inject(telegramfake.Fault{Method: "sendMessage", Status: 403, Message: "Forbidden: bot was blocked by the user",
		Times: 1 << 30, If: func(telegramfake.Call) bool { return blocked.Load() }})
	h.Start()
	h.WaitDone(h.TG.SendText(jane, "hello?"))
	if n := h.Count(`SELECT count(*) FROM updates WHERE state = 'done' AND error LIKE '%blocked by the user%'`); n != 1 {
		t.Fatalf("the failed delivery is not recorded on its update")
	}
	refused := len(h.TG.Calls("sendMessage"))
	blocked.Store(false)
	if got := h.Say(jane, "unblocked now"); got != "echo: unblocked now" {
		t.Fatalf("next reply = %q", got)
	}
	if refused > 2 {
		t.Errorf("%d sends tried while blocked; a 403 is not retried (a streamed answer tries its first part and the whole)", refused)
	}
}

func TestModelRateLimitsServerErrorsAndStalledStreamsAreRetried(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["LLM_IDLE_TIMEOUT"] = "300ms"
	h.LLM.Script(
		openaifake.Reply{Status: 429},
		openaifake.Reply{Status: 503},
		openaifake.Reply{Content: "too late", Delay: time.Minute},
		openaifake.Reply{Content: "Here you are."},
	)
	h.Start()
	if got := h.Say(ivan, "привет"); got != "Here you are." {
		t.Fatalf("reply = %q", got)
	}
	if n := len(h.LLM.Requests()); n != 4 {
		t.Errorf("model calls = %d, want 4", n)
	}
	h.WaitIdle()
	if n := h.Count(`SELECT count(*) FROM messages WHERE role = 'assistant'`); n != 1 {
		t.Errorf("%d answers stored, want 1", n)
	}
}

// LLM_TIMEOUT bounds a whole call, however steadily the model streams
// (LLM_IDLE_TIMEOUT bounds only the gaps), and a call that ran out of it is
// not made again: it would run out again.
func TestLLMTimeoutBoundsTheWholeCallAndIsNotRetried(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["LLM_TIMEOUT"] = "1s"
	h.Env["LLM_IDLE_TIMEOUT"] = "500ms"
	h.LLM.Script(openaifake.Reply{Content: strings.Repeat("slowly ", 40), ChunkDelay: 100 * time.Millisecond})
	h.Start()
	if got := h.Say(ivan, "привет"); !strings.HasPrefix(got, "Извините") {
		t.Fatalf("reply = %q, want the apology", got)
	}
	if n := len(h.LLM.Requests()); n != 1 {
		t.Errorf("model calls = %d, want 1", n)
	}
	h.WaitIdle()
	if n := h.Count(`SELECT count(*) FROM llm_calls WHERE status = 'timeout'`); n != 1 {
		t.Errorf("%d timed-out calls recorded, want 1", n)
	}
}

// A model that answers garbage or keeps failing: the user gets the apology
// after a bounded number of calls, and the bot goes on.
func TestModelGarbageAndExhaustedRetriesGetTheApology(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	replies := map[string]openaifake.Reply{
		"malformed JSON": {Raw: `{"id": "x", "choices": [`},
		"no choices":     {Raw: `{"id": "x", "object": "chat.completion", "choices": []}`},
		"server errors":  {Status: 500},
	}
	calls := map[string]int{}
	var mu sync.Mutex
	h.LLM.RespondWith(func(req openai.ChatCompletionRequest) openaifake.Reply {
		r := openaifake.Echo(req)
		text := strings.TrimPrefix(r.Content, "echo: ")
		mu.Lock()
		defer mu.Unlock()
		calls[text]++
		if bad, ok := replies[text]; ok {
			return bad
		}
		return r
	})
	h.Start()
	for text := range replies {
		if got := h.Say(jane, text); !strings.HasPrefix(got, "Sorry, I couldn't get an answer") {
			t.Errorf("%s: reply = %q, want the apology", text, got)
		}
	}
	if got := h.Say(jane, "and now?"); got != "echo: and now?" {
		t.Fatalf("after the failures the reply = %q", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if calls["server errors"] != 4 {
		t.Errorf("500s: %d model calls, want 4 (3 retries)", calls["server errors"])
	}
	for _, text := range []string{"malformed JSON", "no choices"} {
		// Without streaming garbage is not retried; a garbled stream is, like a cut one.
		if n := calls[text]; n < 1 || n > 4 {
			t.Errorf("%s: %d model calls, want 1 to 4", text, n)
		}
	}
}

func TestBadToolArgumentsReachTheModelAsErrors(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.LLM.Script(
		openaifake.Reply{ToolCalls: []openai.ToolCall{
			openaifake.ToolCall("c1", "calculator", `{"expression": `),
			openaifake.ToolCall("c2", "calculator", `{"expression": 42}`),
			openaifake.ToolCall("c3", "calculator", `{"expression": "1/0"}`),
			openaifake.ToolCall("c4", "current_time", `{"timezone": "Mars/Olympus"}`),
			openaifake.ToolCall("c5", "shell", `{"cmd": "rm -rf /"}`),
			openaifake.ToolCall("c6", "fetch_url", `{"url": `), // needs approval, but cannot be asked about
		}},
		openaifake.Reply{Content: "Those did not work."},
	)
	h.Start()
	if got := h.Say(jane, "break the tools"); got != "Those did not work." {
		t.Fatalf("reply = %q", got)
	}
	reqs := h.LLM.Requests()
	var errs int
	for _, m := range reqs[1].Messages {
		if m.Role == "tool" && strings.HasPrefix(m.Content, "error: ") {
			errs++
		}
	}
	if errs != 6 {
		t.Errorf("the model saw %d error results, want 6: %+v", errs, reqs[1].Messages)
	}
	h.WaitIdle()
	if n := h.Count(`SELECT count(*) FROM messages WHERE role = 'tool' AND metadata ? 'error'`); n != 6 {
		t.Errorf("%d tool rows record their error, want 6", n)
	}
	if n := h.Count(`SELECT count(*) FROM pending_approvals`); n != 0 {
		t.Errorf("%d approvals asked for a call that cannot run", n)
	}
}

func TestTheSendLimiterSpacesRepliesToOneChat(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["TELEGRAM_RATE_LIMIT"] = "on"
	h.LLM.RespondWith(func(req openai.ChatCompletionRequest) openaifake.Reply {
		return openaifake.Reply{Content: strings.Repeat("word ", 1000)} // 5000 characters: two parts each
	})
	h.Start()
	start := time.Now()
	for range 3 {
		h.TG.SendText(jane, "long answer please")
	}
	for deadline := time.Now().Add(wait.Timeout()); len(h.TG.Calls("sendMessage")) < 6; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("6 parts not sent within 30 s")
		}
	}
	// A burst of 3, then one a second: the 6th part waits at least 3 s.
	if elapsed := time.Since(start); elapsed < 3*time.Second {
		t.Fatalf("6 messages to one chat went out in %v", elapsed)
	}
}

// A model server that echoes the request's Authorization header in its
// error: the user gets the apology, and the key is in no stored row and no
// log line (the harness checks the logs at cleanup).
func TestAnAPIKeyInAModelErrorIsNotStored(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.LLM.RespondWith(func(req openai.ChatCompletionRequest) openaifake.Reply {
		return openaifake.Reply{Status: http.StatusUnauthorized,
			Raw: `{"error":{"message":"Incorrect API key provided: Bearer ` + testkit.APIKey + `","type":"invalid_request_error"}}`}
	})
	h.Start()
	if got := h.Say(jane, "hello"); !strings.HasPrefix(got, "Sorry") {
		t.Fatalf("reply = %q, want the apology", got)
	}
	h.WaitIdle()
	if n := h.Count(`SELECT count(*) FROM llm_calls WHERE error LIKE '%Incorrect API key provided: Bearer <redacted>%'`); n == 0 {
		t.Fatalf("the failed call is not recorded with its redacted error")
	}
	for _, q := range []string{
		`SELECT count(*) FROM llm_calls WHERE error LIKE '%' || $1 || '%'`,
		`SELECT count(*) FROM events WHERE payload::text LIKE '%' || $1 || '%'`,
		`SELECT count(*) FROM messages WHERE content LIKE '%' || $1 || '%'`,
	} {
		if n := h.Count(q, testkit.APIKey); n != 0 {
			t.Errorf("%s: the API key is stored in %d rows", q, n)
		}
	}
}
