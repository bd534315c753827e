package memory_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/membot/membot/memory"
)

func TestStartTurnHistoryKeepsToolCallsAndLeavesMetadataOut(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	first, err := store.StartTurn(ctx, memory.TurnStart{User: alice, Chat: memory.Chat{ID: 42}, UpdateID: 1, Content: "2+2?", HistoryLimit: 30})
	if err != nil {
		t.Fatal(err)
	}
	calls := []memory.ToolCall{{ID: "call_1", Name: "calculator", Arguments: `{"expression":"2+2"}`}}
	if _, err := store.AppendMessages(ctx, first.ConversationID,
		memory.Message{Role: memory.RoleAssistant, ToolCalls: calls, UpdateID: 1, Metadata: map[string]any{"model": "m"}},
		memory.Message{Role: memory.RoleTool, Content: "4", ToolCallID: "call_1", ToolName: "calculator", UpdateID: 1},
		memory.Message{Role: memory.RoleAssistant, Content: "4.", UpdateID: 1, Metadata: map[string]any{"model": "m"}},
	); err != nil {
		t.Fatal(err)
	}

	next, err := store.StartTurn(ctx, memory.TurnStart{User: alice, Chat: memory.Chat{ID: 42}, UpdateID: 2, Content: "thanks", HistoryLimit: 30})
	if err != nil {
		t.Fatal(err)
	}
	h := next.History
	if len(h) != 5 || h[4].Content != "thanks" || h[4].ID != next.UserMessageID {
		t.Fatalf("history = %+v", h)
	}
	if len(h[1].ToolCalls) != 1 || !reflect.DeepEqual(h[1].ToolCalls[0], calls[0]) || h[2].ToolCallID != "call_1" || h[2].ToolName != "calculator" {
		t.Fatalf("tool rows = %+v, %+v", h[1], h[2])
	}
	for _, m := range h {
		if m.Metadata != nil || m.ConversationID != first.ConversationID || m.CreatedAt.IsZero() {
			t.Fatalf("history row %+v", m)
		}
	}
}

func TestStartTurnWithoutAnUpdateUsesTheNewestRow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	for _, text := range []string{"one", "two"} {
		turn, err := store.StartTurn(ctx, memory.TurnStart{User: alice, Chat: memory.Chat{ID: 42}, Content: text, HistoryLimit: 30})
		if err != nil {
			t.Fatal(err)
		}
		last := turn.History[len(turn.History)-1]
		if last.Content != text || turn.UserMessageID != last.ID || turn.Answer != nil {
			t.Fatalf("turn for %q = %+v", text, turn)
		}
	}
}
