package bot_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/telegramfake"
)

// Answers whose rendering is longer than their Markdown (a 12,016-character
// nested list, a 4,014-character table) arrive whole: every part fits once
// rendered, nothing is refused, and every line of the answer is shown.
func TestLongAnswersThatGrowWhenRenderedArriveWhole(t *testing.T) {
	t.Parallel()
	var list, table strings.Builder
	for i := 0; list.Len() < 12016; i++ {
		fmt.Fprintf(&list, "- item %d\n  - detail %d of the item\n    - the finest point %d, said at some length\n", i, i, i)
	}
	table.WriteString("|a|b|c|d|e|f|\n|-|-|-|-|-|-|\n")
	for i := 0; table.Len() < 4014; i++ {
		fmt.Fprintf(&table, "|%d|x|y|z|w|v|\n", i)
	}
	for name, streaming := range map[string]string{"sent whole": "false", "streamed": "true"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.Env["STREAMING"] = streaming
			h.Start()
			for _, answer := range []string{list.String(), table.String()} {
				h.LLM.Script(openaifake.Reply{Content: answer})
				shown := strings.Join(texts(h.SayAll(jane, "a long one, please")), "\n")
				for _, line := range strings.Split(strings.TrimSpace(answer), "\n") {
					cell := strings.Trim(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "-")), "|")
					if strings.Trim(cell, "-|") == "" {
						continue // the table's header rule is not shown as such
					}
					if first := strings.Split(cell, "|")[0]; !strings.Contains(shown, first) {
						t.Fatalf("%q is not shown; the chat shows %d characters", first, len(shown))
					}
				}
			}
			if n := h.Count(`SELECT count(*) FROM updates WHERE error IS NOT NULL`); n != 0 {
				t.Errorf("%d updates failed", n)
			}
		})
	}
}

// A reply Telegram refuses for good (here an upload, with the library's
// error of code 0) ends the attempt with a message to the user that says
// what failed, and the chat goes on: the next message is answered.
func TestARefusedUploadIsToldAndTheChatGoesOn(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Start()
	h.Say(jane, "something to export")
	h.TG.Inject(telegramfake.Fault{Method: "sendDocument", Status: 400, Message: "Bad Request: file is too big", Times: 100})
	replies := strings.Join(texts(h.SayAll(jane, "/export")), "\n")
	if !strings.Contains(replies, "The export failed: Telegram refused to take its file (Bad Request: file is too big)") ||
		strings.Contains(replies, "shorter answer") {
		t.Fatalf("/export with refused uploads answered %q; want what failed told", replies)
	}
	if n := h.Count(`SELECT count(*) FROM updates WHERE state = 'done' AND error LIKE '%file is too big%'`); n != 1 {
		t.Errorf("%d updates given up with the refusal, want 1", n)
	}
	if got := h.Say(jane, "still there?"); !strings.Contains(got, "still there?") {
		t.Errorf("the next message got %q", got)
	}
}

func texts(msgs []telegramfake.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Text)
	}
	return out
}
