package agent

import (
	"strings"
	"testing"
	"time"

	"github.com/membot/membot/agent/modes"
	"github.com/membot/membot/agent/request"
	"github.com/membot/membot/memory"
)

func TestValidWindowPlacesADecidedCallWhereItsResultIs(t *testing.T) {
	t.Parallel()
	rows := []memory.Message{
		{Role: memory.RoleUser, Content: "read the page"},
		{Role: memory.RoleAssistant, ToolCalls: []memory.ToolCall{{ID: "f", Name: "fetch_url"}, {ID: "c", Name: "calculator"}}},
		{Role: memory.RoleTool, ToolCallID: "c", Content: "4"}, // ran at once
		{Role: memory.RoleUser, Content: "meanwhile"},
		{Role: memory.RoleAssistant, Content: "sure"},
		{Role: memory.RoleTool, ToolCallID: "f", Content: "page"},                                // approved later
		{Role: memory.RoleAssistant, ToolCalls: []memory.ToolCall{{ID: "f", Name: "fetch_url"}}}, // the same id again
		{Role: memory.RoleTool, ToolCallID: "f", Content: "page 2"},
	}
	var got []string
	for _, r := range request.ValidWindow(rows) {
		got = append(got, string(r.Role)+":"+r.Content+r.ToolCallID)
	}
	want := "user:read the page user:meanwhile assistant:sure assistant: tool:pagef tool:4c assistant: tool:page 2f"
	if strings.Join(got, " ") != want {
		t.Fatalf("window = %q\nwant     %q", strings.Join(got, " "), want)
	}
	// While the call still waits, the row that asked is left out.
	got = nil
	for _, r := range request.ValidWindow(rows[:5]) {
		got = append(got, string(r.Role)+":"+r.Content)
	}
	if strings.Join(got, " ") != "user:read the page user:meanwhile assistant:sure" {
		t.Fatalf("waiting window = %q", got)
	}
}

func TestSystemPromptCarriesFactsAndWaitingCalls(t *testing.T) {
	t.Parallel()
	a := New(nil, nil, NewRegistry(), Config{SystemPrompt: "Be nice."}, nil)
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
