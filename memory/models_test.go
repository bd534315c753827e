package memory_test

import (
	"context"
	"testing"

	"github.com/membot/membot/memory"
)

// A conversation's model: the default until switched, every switch a row
// of model_switches, the turn loads it, and /new keeps it.
func TestTheConversationsModelIsSwitchedRecordedAndKeptByNew(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	if m, err := store.Choices().ConversationModel(ctx, memory.Chat{ID: 42}, 42); err != nil || m != "" {
		t.Fatalf("a new chat's model = %q, %v", m, err)
	}
	from, err := store.Choices().SwitchModel(ctx, memory.Chat{ID: 42}, 42, "llama3.1:8b", memory.SwitchByCommand)
	if err != nil || from != "" {
		t.Fatalf("switch = %q, %v", from, err)
	}
	if from, _ := store.Choices().SwitchModel(ctx, memory.Chat{ID: 42}, 42, "llama3.1:8b", memory.SwitchByButton); from != "llama3.1:8b" {
		t.Fatalf("switching again from %q", from)
	}
	turn, err := store.StartTurn(ctx, memory.TurnStart{User: alice, Chat: memory.Chat{ID: 42}, UpdateID: 1, Content: "hi", HistoryLimit: 10})
	if err != nil || turn.Model != "llama3.1:8b" {
		t.Fatalf("the turn's model = %q, %v", turn.Model, err)
	}
	if _, err := store.Reset(ctx, memory.Chat{ID: 42}, 42); err != nil {
		t.Fatal(err)
	}
	if m, _ := store.Choices().ConversationModel(ctx, memory.Chat{ID: 42}, 42); m != "llama3.1:8b" {
		t.Fatalf("after /new the model is %q", m)
	}
	if from, _ := store.Choices().SwitchModel(ctx, memory.Chat{ID: 42}, 42, "", memory.SwitchByButton); from != "llama3.1:8b" {
		t.Fatalf("back to the default from %q", from)
	}
	var switches int
	if err := store.Pool().QueryRow(ctx, `SELECT count(*) FROM model_switches WHERE chat_id = 42`).Scan(&switches); err != nil || switches != 2 {
		t.Fatalf("%d switches recorded (%v), want 2", switches, err)
	}
}
