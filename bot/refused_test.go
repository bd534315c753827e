package bot_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/internal/testing/openaifake"
)

// A message the model server refuses for good (a 400 for its content) is
// answered with the apology, noted on its row, and left out of later
// requests, whose system message says an earlier message could not be
// answered and why: the chat goes on. A message whose turn failed for a
// while (a 503) is merged into the next one, as before, and answered then.
func TestAMessageTheServerRefusesForGoodDoesNotPoisonTheChat(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.LLM.RespondWith(func(req openai.ChatCompletionRequest) openaifake.Reply {
		for _, m := range req.Messages {
			if m.Role == openai.ChatMessageRoleUser && strings.Contains(m.Content, "forbidden words") {
				return openaifake.Reply{Status: http.StatusBadRequest,
					Raw: `{"error":{"message":"the content was flagged","type":"invalid_request_error"}}`}
			}
		}
		return openaifake.Echo(req)
	})
	h.Start()
	if got := h.Say(jane, "some forbidden words"); !strings.HasPrefix(got, "Sorry") {
		t.Fatalf("the refused message was answered %q", got)
	}
	if n := h.Count(`SELECT count(*) FROM messages WHERE role = 'user' AND content LIKE '%forbidden words'
		AND metadata->>'refused' = '400: the content was flagged'`); n != 1 {
		t.Fatalf("%d user rows note the refusal, want 1", n)
	}
	for _, text := range []string{"hello", "and again"} {
		if got := h.Say(jane, text); got != "echo: "+text {
			t.Fatalf("after the refusal, %q was answered %q", text, got)
		}
	}
	reqs := h.LLM.Requests()
	last := reqs[len(reqs)-1]
	if system := last.Messages[0].Content; !strings.Contains(system, "An earlier message of the user could not be answered") ||
		!strings.Contains(system, "400: the content was flagged") {
		t.Errorf("the system message does not say an earlier message was refused:\n%s", system)
	}

	// A failure for a while: the message is merged into the next and answered.
	down := openaifake.Reply{Status: http.StatusServiceUnavailable}
	h.LLM.Script(down, down, down, down) // every attempt of the turn
	if got := h.Say(jane, "first try"); !strings.HasPrefix(got, "Sorry") {
		t.Fatalf("the failed turn was answered %q", got)
	}
	if got := h.Say(jane, "second try"); got != "echo: second try" {
		t.Fatalf("after a passing failure the chat got %q", got)
	}
	reqs = h.LLM.Requests()
	if user := openaifake.LastUserContent(reqs[len(reqs)-1]); !strings.Contains(user, "first try") || !strings.Contains(user, "second try") {
		t.Errorf("the message of the failed turn is not merged into the next: %q", user)
	}
	if n := h.Count(`SELECT count(*) FROM messages WHERE metadata ? 'refused'`); n != 1 {
		t.Errorf("%d rows are noted refused, want only the one refused for good", n)
	}
}
