package bot_test

import (
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/internal/testing/openaifake"
)

// /retry after a turn that set a reminder cancels that reminder, so the
// answer written again does not make a second one; /undo of a turn that
// saved a fact removes it from /memory, while a fact from before that the
// turn only saved again stays. Each reply says what went.
func TestRetryAndUndoTakeBackTheTurnsReminderAndFact(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Start()
	remember := func(id, fact, answer string) {
		h.LLM.Script(openaifake.Reply{ToolCalls: []openai.ToolCall{openaifake.ToolCall(id, "remember", `{"fact":"`+fact+`"}`)}},
			openaifake.Reply{Content: answer})
	}
	remember("call_0", "Lives in Kazan", "OK.")
	h.Say(jane, "I live in Kazan")

	remind := func(id string) {
		h.LLM.Script(openaifake.Reply{ToolCalls: []openai.ToolCall{openaifake.ToolCall(id, "set_reminder", `{"text":"call the dentist","in":"2h"}`)}},
			openaifake.Reply{Content: "I will remind you in two hours."})
	}
	remind("call_1")
	h.Say(jane, "remind me to call the dentist in 2 hours")
	remind("call_2") // the /retry sets it again
	said := strings.Join(texts(h.SayAll(jane, "/retry")), "\n")
	if !strings.Contains(said, "Cancelled with it: 1 reminder it had set:\n• call the dentist") ||
		!strings.Contains(said, "I will remind you in two hours.") {
		t.Fatalf("/retry said %q", said)
	}
	if n := h.Count(`SELECT count(*) FROM reminders WHERE chat_id = $1 AND status = 'pending'`, jane.ID); n != 1 {
		t.Fatalf("%d reminders wait after /retry, want 1 (not a second one)", n)
	}
	if n := h.Count(`SELECT count(*) FROM reminders WHERE chat_id = $1 AND status = 'cancelled'`, jane.ID); n != 1 {
		t.Fatalf("%d reminders cancelled by /retry, want 1", n)
	}

	// A turn that saves a new fact and the old one again, then /undo.
	h.LLM.Script(openaifake.Reply{ToolCalls: []openai.ToolCall{
		openaifake.ToolCall("call_3", "remember", `{"fact":"Has a dentist appointment"}`),
		openaifake.ToolCall("call_4", "remember", `{"fact":"Lives in Kazan"}`),
	}}, openaifake.Reply{Content: "Noted."})
	h.Say(jane, "I have a dentist appointment, and I still live in Kazan")
	said = h.Say(jane, "/undo")
	if !strings.Contains(said, "Removed from /memory with it: 1 fact it had saved:\n• Has a dentist appointment") ||
		strings.Contains(said, "• Lives in Kazan") || strings.Contains(said, "reminder") {
		t.Fatalf("/undo said %q", said)
	}
	memory := h.Say(jane, "/memory")
	if strings.Contains(memory, "dentist") || !strings.Contains(memory, "Lives in Kazan") {
		t.Fatalf("/memory after /undo shows %q", memory)
	}
	// The reminder's turn is undone too: its reminder goes with it.
	said = h.Say(jane, "/undo")
	if !strings.Contains(said, "Cancelled with it: 1 reminder it had set") {
		t.Fatalf("the second /undo said %q", said)
	}
	if n := h.Count(`SELECT count(*) FROM reminders WHERE chat_id = $1 AND status = 'pending'`, jane.ID); n != 0 {
		t.Fatalf("%d reminders wait after undoing their turn", n)
	}
}
