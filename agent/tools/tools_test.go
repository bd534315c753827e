package tools

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/membot/membot/agent"
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
	r := agent.NewRegistry(Builtin(Env{Location: moscow, Now: func() time.Time { return now }})...)

	got, err := r.Call(context.Background(), &agent.TurnInfo{}, memory.ToolCall{Name: "current_time", Arguments: `{}`})
	if err != nil || !strings.HasPrefix(got, "2026-11-21 15:00:00 Saturday (Europe/Moscow, UTC+03:00)") {
		t.Fatalf("current_time = %q, %v", got, err)
	}
	got, err = r.Call(context.Background(), &agent.TurnInfo{}, memory.ToolCall{Name: "current_time", Arguments: `{"timezone":"Asia/Tokyo"}`})
	if err != nil || !strings.HasPrefix(got, "2026-11-21 21:00:00") {
		t.Fatalf("current_time in Tokyo = %q, %v", got, err)
	}
	if _, err := r.Call(context.Background(), &agent.TurnInfo{}, memory.ToolCall{Name: "current_time", Arguments: `{"timezone":"Mars/Olympus"}`}); err == nil {
		t.Fatal("an unknown zone gave no error")
	}
}
