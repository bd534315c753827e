package agent

import (
	"strings"
	"testing"
	"time"

	"github.com/membot/membot/memory"
)

func TestDueTimeReadsTimesAndDurationsInTheBotsZone(t *testing.T) {
	t.Parallel()
	moscow, _ := time.LoadLocation("Europe/Moscow")
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC) // 15:00 in Moscow
	good := map[[2]string]string{
		{"2026-11-22 09:30", ""}:     "2026-11-22 09:30",
		{"2026-11-22T09:30:00", ""}:  "2026-11-22 09:30",
		{"18:00", ""}:                "2026-11-21 18:00", // later today
		{"09:00", ""}:                "2026-11-22 09:00", // passed: tomorrow
		{"2026-11-21T20:00:00Z", ""}: "2026-11-21 23:00", // its own offset
		{"", "45m"}:                  "2026-11-21 15:45",
		{"", "2h30m"}:                "2026-11-21 17:30",
		{"", "1.5h"}:                 "2026-11-21 16:30",
		{"", "1w 2d"}:                "2026-11-30 15:00",
		{"", "90 min"}:               "2026-11-21 16:30",
		{"", "30s"}:                  "2026-11-21 15:00",
		{"2027-01-01 00:00", ""}:     "2027-01-01 00:00",
		{"2026-11-21T15:00:05", ""}:  "2026-11-21 15:00",
		{"2026-11-21 15:01", ""}:     "2026-11-21 15:01",
		{"", "3d"}:                   "2026-11-24 15:00",
		{"", "10M"}:                  "2026-11-21 15:10",
		{"23:59", ""}:                "2026-11-21 23:59",
		{"2026-12-31 23:59:59", ""}:  "2026-12-31 23:59",
	}
	for in, want := range good {
		due, err := dueTime(in[0], in[1], now, moscow)
		if err != nil {
			t.Errorf("dueTime(%q, %q): %v", in[0], in[1], err)
			continue
		}
		if got := due.In(moscow).Format("2006-01-02 15:04"); got != want {
			t.Errorf("dueTime(%q, %q) = %s, want %s", in[0], in[1], got, want)
		}
	}
	bad := [][2]string{{"", ""}, {"18:00", "1h"}, {"2026-11-20 10:00", ""}, {"tomorrow", ""}, {"", "soon"},
		{"", "5"}, {"", "h"}, {"", "-5m"}, {"", "20y"}, {"", "99999w"}, {"2040-01-01 00:00", ""},
		{"2026-11-21T13:00:00+01:00", ""}} // exactly now is not in the future
	for _, in := range bad {
		if due, err := dueTime(in[0], in[1], now, moscow); err == nil {
			t.Errorf("dueTime(%q, %q) = %v, want an error", in[0], in[1], due)
		}
	}
}

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
	for _, r := range validWindow(rows) {
		got = append(got, string(r.Role)+":"+r.Content+r.ToolCallID)
	}
	want := "user:read the page user:meanwhile assistant:sure assistant: tool:pagef tool:4c assistant: tool:page 2f"
	if strings.Join(got, " ") != want {
		t.Fatalf("window = %q\nwant     %q", strings.Join(got, " "), want)
	}
	// While the call still waits, the row that asked is left out.
	got = nil
	for _, r := range validWindow(rows[:5]) {
		got = append(got, string(r.Role)+":"+r.Content)
	}
	if strings.Join(got, " ") != "user:read the page user:meanwhile assistant:sure" {
		t.Fatalf("waiting window = %q", got)
	}
}

func TestSystemPromptCarriesFactsAndWaitingCalls(t *testing.T) {
	t.Parallel()
	a := New(nil, nil, NewRegistry(), Config{SystemPrompt: "Be nice."}, nil)
	if got := a.systemPrompt(&memory.Turn{Mode: DefaultMode}, false, nil); got != "Be nice." {
		t.Fatalf("prompt without facts = %q", got)
	}
	if got := a.systemPrompt(&memory.Turn{Mode: DefaultMode}, true, nil); got != "Be nice.\n\n"+groupNote {
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
