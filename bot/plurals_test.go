package bot_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/internal/testing/openaifake"
)

// Counts agree with their nouns in both languages: not "all 1 facts" nor
// "62 вызовов", but "1 fact" and "за 1 вызов модели", "за 2 вызова модели".
func TestCountsAgreeWithTheirNounsInBothLanguages(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["ADMIN_USER_IDS"] = fmt.Sprint(ivan.ID)
	h.Start()
	h.LLM.Script(openaifake.Reply{ToolCalls: []openai.ToolCall{openaifake.ToolCall("c1", "remember", `{"fact":"Likes tea"}`)}},
		openaifake.Reply{Content: "Noted."})
	h.Say(jane, "I like tea")
	if got := h.Say(jane, "/forget all"); !strings.Contains(got, "(1 fact)") {
		t.Errorf("/forget all of one fact said %q", got)
	}
	if got := h.Say(ivan, "/stats"); !strings.Contains(got, "за 2 вызова модели") {
		t.Errorf("/stats after two model calls said %q", got)
	}
	h.Say(ivan, "ещё один")
	h.Say(ivan, "и ещё")
	h.Say(ivan, "и ещё раз")
	if got := h.Say(ivan, "/stats"); !strings.Contains(got, "за 5 вызовов модели") {
		t.Errorf("/stats after five model calls said %q", got)
	}
	if got := h.Say(ivan, fmt.Sprintf("/user %d", jane.ID)); !strings.Contains(got, "за 2 вызова модели") {
		t.Errorf("/user said %q", got)
	}
}
