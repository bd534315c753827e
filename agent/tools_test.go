package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/membot/membot/agent/request"
	"github.com/membot/membot/memory"
)

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
	for _, r := range request.ValidWindow(rows) {
		got = append(got, string(r.Role)+":"+r.Content+r.ToolCallID)
	}
	want := "assistant:a1 user:u assistant: tool:zz system:Tools used: t"
	if strings.Join(got, " ") != want {
		t.Fatalf("window = %q\nwant     %q", strings.Join(got, " "), want)
	}
}
