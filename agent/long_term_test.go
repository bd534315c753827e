package agent

import (
	"strings"
	"testing"
	"time"

	"github.com/membot/membot/agent/modes"
	"github.com/membot/membot/memory"
)

func TestSystemPromptCarriesFactsAndWaitingCalls(t *testing.T) {
	t.Parallel()
	a := New(Config{SystemPrompt: "Be nice."}, Parts{Tools: NewRegistry()})
	if got := a.systemPrompt(&memory.Turn{Mode: modes.Default}, false, nil); got != "Be nice." {
		t.Fatalf("prompt without facts = %q", got)
	}
	if got := a.systemPrompt(&memory.Turn{Mode: modes.Default}, true, nil); got != "Be nice.\n\n"+groupNote {
		t.Fatalf("prompt in a group = %q", got)
	}
	turn := &memory.Turn{Mode: "concise", Facts: []memory.Fact{{ID: 9, Content: "Likes tea"}, {ID: 4, Content: "Lives in Kazan"}},
		Summary: "They planned a trip to Perm.", Recalled: []memory.Snippet{{Role: memory.RoleUser, Text: "my «dog» is Rex", WrittenAt: time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)}}}
	got := a.systemPrompt(turn, false, []memory.Approval{{Subject: "fetch_url", Details: `{"url": "https://example.com"}`}})
	for _, want := range []string{"Be nice.\n\nMode: concise.", "\n\nLong-term memory", "\n#9 \"Likes tea\"\n#4 \"Lives in Kazan\"", `- fetch_url {"url": "https://example.com"}`,
		summaryHeading + "\n> They planned a trip to Perm.", "\n[2026-03-01 09:30] user: my «dog» is Rex"} {
		if !strings.Contains(got, want) {
			t.Errorf("prompt lacks %q:\n%s", want, got)
		}
	}
}
