package bot_test

import (
	"strings"
	"testing"

	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/telegramfake"
)

// When Telegram refuses the second part of a long answer for good, the
// user is told the answer did not reach them whole, instead of reading
// half of it as if it were all; the chat goes on.
func TestARefusedFollowOnPartIsTold(t *testing.T) {
	t.Parallel()
	answer := strings.Repeat("The first part of a long answer. ", 150) + "\n\n" + strings.Repeat("SECOND-PART words that Telegram will refuse. ", 60)
	for name, streaming := range map[string]string{"sent whole": "false", "streamed": "true"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.Env["STREAMING"] = streaming
			h.Start()
			// A streamed part is sent short and edited as it grows: both are refused once it holds the second part.
			for _, method := range []string{"sendMessage", "editMessageText"} {
				h.TG.Inject(telegramfake.Fault{Method: method, Status: 400, Message: "Bad Request: message is too long", Times: 100,
					If: func(c telegramfake.Call) bool { return strings.Contains(c.Params["text"], "SECOND-PART") }})
			}
			h.LLM.Script(openaifake.Reply{Content: answer})
			shown := strings.Join(texts(h.SayAll(jane, "a long answer, please")), "\n")
			if !strings.Contains(shown, "The first part of a long answer.") {
				t.Fatalf("the first part is not shown: %q", shown)
			}
			if !strings.Contains(shown, "did not reach you whole") || !strings.Contains(shown, "message is too long") {
				t.Fatalf("the cut answer is not told; the chat shows %q", shown)
			}
			if got := h.Say(jane, "still there?"); !strings.Contains(got, "still there?") {
				t.Errorf("the next message got %q", got)
			}
		})
	}
}
