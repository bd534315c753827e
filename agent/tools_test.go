package agent

import (
	"context"
	"encoding/json"
	"testing"

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
