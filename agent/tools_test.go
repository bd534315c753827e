package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/membot/membot/memory"
)

func TestCalculate(t *testing.T) {
	t.Parallel()
	good := map[string]float64{
		"2+2":                   4,
		"(2 + 3) * 4 ^ 2":       80,
		"2^3^2":                 512,
		"-2^2":                  -4,
		"10 % 4":                2,
		"sqrt(16) / 2":          2,
		"1.5e3 + 2E-1":          1500.2,
		"round(pi * 100) / 100": 3.14,
		" 7 - - 3 ":             10,
		"abs(-5) + floor(2.7)":  7,
	}
	for expr, want := range good {
		got, err := Calculate(expr)
		if err != nil || got != want {
			t.Errorf("Calculate(%q) = %v, %v; want %v", expr, got, err, want)
		}
	}
	bad := []string{"", "1/0", "2+", "(1", "os.Exit(1)", "1 2", "sqrt 4", "foo(1)", "__import__('os')", strings.Repeat("(", 2000)}
	for _, expr := range bad {
		if v, err := Calculate(expr); err == nil {
			t.Errorf("Calculate(%q) = %v, want an error", expr, v)
		}
	}
}

func TestCurrentTimeInTheBotZoneAndAnother(t *testing.T) {
	t.Parallel()
	moscow, _ := time.LoadLocation("Europe/Moscow")
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	r := NewRegistry(BuiltinTools(ToolEnv{Location: moscow, Now: func() time.Time { return now }})...)

	got, err := r.Call(context.Background(), &TurnInfo{}, memory.ToolCall{Name: "current_time", Arguments: `{}`})
	if err != nil || !strings.HasPrefix(got, "2026-11-21 15:00:00 Saturday (Europe/Moscow, UTC+03:00)") {
		t.Fatalf("current_time = %q, %v", got, err)
	}
	got, err = r.Call(context.Background(), &TurnInfo{}, memory.ToolCall{Name: "current_time", Arguments: `{"timezone":"Asia/Tokyo"}`})
	if err != nil || !strings.HasPrefix(got, "2026-11-21 21:00:00") {
		t.Fatalf("current_time in Tokyo = %q, %v", got, err)
	}
	if _, err := r.Call(context.Background(), &TurnInfo{}, memory.ToolCall{Name: "current_time", Arguments: `{"timezone":"Mars/Olympus"}`}); err == nil {
		t.Fatal("an unknown zone gave no error")
	}
}

func TestRegistryTurnsEveryFailureIntoAnError(t *testing.T) {
	t.Parallel()
	r := NewRegistry(Tool{Name: "boom", Run: func(context.Context, *TurnInfo, json.RawMessage) (string, error) { panic("kaboom") }})
	cases := []memory.ToolCall{
		{Name: "nope", Arguments: `{}`},
		{Name: "boom", Arguments: `{not json`},
		{Name: "boom", Arguments: `{}`},
	}
	for _, c := range cases {
		if _, err := r.Call(context.Background(), &TurnInfo{}, c); err == nil {
			t.Errorf("call %+v gave no error", c)
		}
	}
}

func TestValidWindowDropsOrphanAndIncompleteToolRows(t *testing.T) {
	t.Parallel()
	call := func(ids ...string) []memory.ToolCall {
		var cs []memory.ToolCall
		for _, id := range ids {
			cs = append(cs, memory.ToolCall{ID: id, Name: "t"})
		}
		return cs
	}
	rows := []memory.Message{
		{Role: memory.RoleTool, ToolCallID: "old", Content: "orphan"}, // its assistant row is outside
		{Role: memory.RoleAssistant, Content: "a1"},                   // kept
		{Role: memory.RoleAssistant, ToolCalls: call("x", "y")},       // y never answered: dropped
		{Role: memory.RoleTool, ToolCallID: "x", Content: "x"},        // dropped with it
		{Role: memory.RoleUser, Content: "u"},                         // kept
		{Role: memory.RoleAssistant, ToolCalls: call("z")},            // kept
		{Role: memory.RoleTool, ToolCallID: "z", Content: "z"},        // kept
		{Role: memory.RoleSystem, Content: "Tools used: t"},           // kept
	}
	var got []string
	for _, r := range validWindow(rows) {
		got = append(got, string(r.Role)+":"+r.Content+r.ToolCallID)
	}
	want := "assistant:a1 user:u assistant: tool:zz system:Tools used: t"
	if strings.Join(got, " ") != want {
		t.Fatalf("window = %q\nwant     %q", strings.Join(got, " "), want)
	}
}
