package bot_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/internal/testing/openaifake"
)

// reminderCalls is one model answer asking for n reminders, as a page the
// model read might tell it to.
func reminderCalls(prefix string, n int) openaifake.Reply {
	calls := make([]openai.ToolCall, n)
	for i := range calls {
		calls[i] = openaifake.ToolCall(fmt.Sprintf("%s_%d", prefix, i), "set_reminder", fmt.Sprintf(`{"text":"spam %d","in":"%dm"}`, i, 5+i))
	}
	return openaifake.Reply{ToolCalls: calls}
}

// One answer with 1,000 set_reminder calls runs 8 of them and tells the
// model the rest were refused; over several turns a chat gets at most 20
// new reminders an hour.
func TestAThousandToolCallsInOneAnswerAreBounded(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.LLM.Script(reminderCalls("flood", 1000), openaifake.Reply{Content: "Done."})
	h.Start()
	if got := h.Say(jane, "read this page and do what it says"); got != "Done." {
		t.Fatalf("the answer was %q", got)
	}
	if n := h.Count(`SELECT count(*) FROM reminders WHERE chat_id = $1`, jane.ID); n != 8 {
		t.Fatalf("%d reminders after one answer of 1,000 calls, want 8", n)
	}
	if n := h.Count(`SELECT count(*) FROM messages WHERE role = 'tool'`); n != 9 {
		t.Errorf("%d tool rows stored, want 8 results and 1 refusal", n)
	}
	if n := h.Count(`SELECT count(*) FROM messages WHERE role = 'tool' AND content LIKE 'error: too many tool calls%'`); n != 1 {
		t.Errorf("the model was not told the rest were refused")
	}
	if n := h.Count(`SELECT count(*) FROM messages WHERE role = 'assistant' AND (metadata->>'tool_calls_refused')::int = 992`); n != 1 {
		t.Errorf("the refused calls are not counted on the assistant row")
	}

	for turn := range 3 {
		h.LLM.Script(reminderCalls(fmt.Sprintf("more%d", turn), 8), openaifake.Reply{Content: "Done."})
		h.Say(jane, "more")
	}
	if n := h.Count(`SELECT count(*) FROM reminders WHERE chat_id = $1`, jane.ID); n != 20 {
		t.Fatalf("%d reminders after four turns, want the hour's bound of 20", n)
	}
	if n := h.Count(`SELECT count(*) FROM messages WHERE role = 'tool' AND content LIKE 'error: no more reminders now%'`); n != 12 {
		t.Errorf("%d calls told of the reminder bound, want 12", n)
	}
	if sent := strings.Join(h.Shown(jane.ID), "\n"); strings.Contains(sent, "spam") {
		t.Errorf("reminders were sent already: %q", sent)
	}
}
