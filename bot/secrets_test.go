package bot_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/pgtest"
	"github.com/membot/membot/internal/testing/telegramfake"
	"github.com/membot/membot/internal/testing/testkit"
)

// leak is an error body that echoes the bot's secrets back, as a careless
// server (or proxy) in front of the model may.
var leak = fmt.Sprintf(`{"error":{"message":"rejected: key %s, bot %s","type":"invalid_request_error"}}`, testkit.APIKey, testkit.Token)

// Every path by which a server's error reaches the bot — the chat model,
// the memory work's fact extraction, embeddings, transcription, speech,
// Telegram, a tool's result — meets servers that echo the token and the
// key: no row of llm_calls, updates, events or messages holds either (the
// record keeps the error with the secret marked), and no log line does
// (the harness checks the logs at cleanup).
func TestSecretsEchoedByServersAreNeverStoredOrLogged(t *testing.T) {
	t.Parallel()
	pgtest.RequireVectors(t)
	leaky := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/page" { // a web page a tool reads
			fmt.Fprintf(w, "token %s key %s", testkit.Token, testkit.APIKey)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, leak)
	}))
	t.Cleanup(leaky.Close)

	h := newHarness(t)
	h.Env["TRANSCRIPTION_BASE_URL"] = leaky.URL + "/v1"
	h.Env["TTS_BASE_URL"] = leaky.URL + "/v1"
	h.Env["EMBEDDINGS_BASE_URL"] = leaky.URL + "/v1"
	h.Env["EMBEDDINGS_MODEL"] = "fake-embed"
	h.Env["AUTO_MEMORY"] = "on"
	h.Env["FETCH_ALLOW_PRIVATE"] = "true"
	h.Env["APPROVAL_REQUIRED_TOOLS"] = "set_reminder" // fetch_url runs at once
	// Answered by what it is asked (not a script the memory work, which
	// calls the model in the background, could take a reply of).
	h.LLM.RespondWith(func(req openai.ChatCompletionRequest) openaifake.Reply {
		last := req.Messages[len(req.Messages)-1]
		switch {
		case strings.HasPrefix(req.Messages[0].Content, "You keep the long-term memory") ||
			strings.HasSuffix(openaifake.LastUserContent(req), "refuse this"):
			return openaifake.Reply{Status: http.StatusBadRequest, Raw: leak}
		case last.Role == openai.ChatMessageRoleTool && last.ToolCallID == "call_leak":
			return openaifake.Reply{Content: "read it"}
		case strings.HasSuffix(openaifake.LastUserContent(req), "read the page"):
			return openaifake.Reply{ToolCalls: []openai.ToolCall{openaifake.ToolCall("call_leak", "fetch_url", `{"url":"`+leaky.URL+`/page"}`)}}
		}
		return openaifake.Echo(req)
	})
	h.Start()

	h.Say(jane, "hello") // answered; then facts and embeddings fail
	h.Say(jane, "refuse this")
	voice := h.TG.AddFile("voice/leak.oga", []byte("a recording"))
	h.WaitDone(h.TG.SendMedia(jane, "voice", telegramfake.Voice(voice, 2), ""))
	h.Say(jane, "/voice")
	h.Say(jane, "speak to me")                                                                     // the speech fails
	h.TG.Inject(telegramfake.Fault{Method: "sendMessage", Status: http.StatusBadRequest, Times: 2, // HTML, then plain
		Message: "Bad Request: no such chat for bot" + testkit.Token,
		If:      func(c telegramfake.Call) bool { return strings.Contains(c.Params["text"], "unsendable") }})
	h.WaitDone(h.TG.SendText(jane, "unsendable"))
	h.Say(jane, "read the page")
	h.WaitIdle()

	// Each path's error (or result) is recorded, with the secrets marked
	// (a failed embedding is logged only).
	for _, purpose := range []string{"chat", "facts", "transcription", "speech"} {
		h.WaitUntil("no "+purpose+" call recorded with the secrets marked", func() bool {
			return h.Count(`SELECT count(*) FROM llm_calls WHERE purpose = $1 AND error LIKE '%<redacted>%'`, purpose) > 0
		})
	}
	if n := h.Count(`SELECT count(*) FROM updates WHERE error LIKE '%no such chat for bot<redacted>%'`); n != 1 {
		t.Errorf("%d updates record Telegram's refusal with the token marked, want 1", n)
	}
	if n := h.Count(`SELECT count(*) FROM events WHERE type = 'llm_error' AND payload->>'error' LIKE '%<redacted>%'`); n == 0 {
		t.Error("no llm_error event records the failure with the secrets marked")
	}
	if n := h.Count(`SELECT count(*) FROM messages WHERE role = 'tool' AND content LIKE '%token <redacted> key <redacted>%'`); n != 1 {
		t.Errorf("%d tool rows hold the page with the secrets marked, want 1", n)
	}
	// No column of any row holds a secret.
	for _, table := range []string{"llm_calls", "updates", "events", "messages"} {
		if n := h.Count(`SELECT count(*) FROM `+table+` t WHERE strpos(t::text, $1) > 0 OR strpos(t::text, $2) > 0`,
			testkit.Token, testkit.APIKey); n != 0 {
			t.Errorf("%d rows of %s hold a secret", n, table)
		}
	}
	for _, logged := range []string{"update given up", "embeddings: the model call failed", "memory: the model call failed", "the spoken answer was not sent"} {
		if !regexp.MustCompile(regexp.QuoteMeta(logged) + `.*bot <redacted>`).MatchString(h.Logs.String()) {
			t.Errorf("no log line %q shows the error with the secret marked", logged)
		}
	}
}
