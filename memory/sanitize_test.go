package memory_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/queue"
)

// PostgreSQL refuses NUL and invalid UTF-8 in text and jsonb; what comes
// from Telegram or the model is cleaned instead of failing the write.
func TestWhatPostgreSQLRefusesIsCleanedOnTheWayIn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)

	// An update with \u0000, a lone surrogate and a raw invalid byte, next to
	// a clean one (stored byte for byte) and an escaped backslash that only
	// looks like \u0000.
	dirty := "{\"update_id\": 1, \"message\": {\"text\": \"a\\u0000b \\ud800 c\xff d \\\\u0000 \\ud83d\\ude00\", \"n\": 12345678901234567890}}"
	clean := `{"update_id": 2, "message": {"text": "fine"}}`
	err := store.Inbox().SaveUpdates(ctx, []queue.Update{
		{UpdateID: 1, ChatID: 7, Payload: []byte(dirty)},
		{UpdateID: 2, ChatID: 7, Payload: []byte(clean)},
	})
	if err != nil {
		t.Fatalf("saving the dirty update: %v", err)
	}
	owner := store.Inbox().HoldOwnerLock(ctx, slog.New(slog.NewTextHandler(io.Discard, nil)))
	u, err := store.Inbox().ClaimNext(ctx, 7, owner.ID)
	if err != nil || u == nil {
		t.Fatalf("claim = %+v, %v", u, err)
	}
	var got struct {
		Message struct {
			Text string      `json:"text"`
			N    json.Number `json:"n"`
		} `json:"message"`
	}
	if err := json.Unmarshal(u.Payload, &got); err != nil {
		t.Fatal(err)
	}
	if want := "ab \uFFFD c\uFFFD d \\u0000 😀"; got.Message.Text != want || got.Message.N != "12345678901234567890" {
		t.Fatalf("stored text = %q, n = %s; want %q", got.Message.Text, got.Message.N, want)
	}

	// Names, message content, tool calls and metadata.
	nul := "x\x00y\xfe"
	if err := store.Access().UpsertUser(ctx, memory.User{TelegramUserID: 9, FirstName: nul}); err != nil {
		t.Fatalf("user with NUL in the name: %v", err)
	}
	conv, _ := store.CurrentConversation(ctx, memory.Chat{ID: 9}, 9)
	_, err = store.AppendMessages(ctx, conv,
		memory.Message{Role: memory.RoleUser, Content: nul},
		memory.Message{Role: memory.RoleAssistant, ToolCalls: []memory.ToolCall{{ID: "c1", Name: "t", Arguments: `{"a":"` + nul + `"}`}},
			Metadata: map[string]any{"note": nul, "nested": map[string]any{"k": []any{nul}}}},
	)
	if err != nil {
		t.Fatalf("messages with NUL: %v", err)
	}
	rows, _ := store.LastMessages(ctx, conv, 10)
	if len(rows) != 2 || rows[0].Content != "xy\uFFFD" || rows[1].ToolCalls[0].Arguments != `{"a":"xy`+"\uFFFD"+`"}` ||
		rows[1].Metadata["note"] != "xy\uFFFD" {
		t.Fatalf("rows = %+v", rows)
	}
	if err := store.Inbox().Complete(ctx, 1, nil, "failed: "+nul); err != nil {
		t.Fatalf("complete with NUL in the error: %v", err)
	}
	if err := store.Events().AddEvents(ctx, memory.Event{Type: memory.EventLLMError, UserID: 9, Payload: map[string]any{"error": nul}}); err != nil {
		t.Fatalf("event with NUL: %v", err)
	}
	if _, err := store.LongTerm().Remember(ctx, 9, 0, "likes "+nul, 0); err != nil {
		t.Fatalf("fact with NUL: %v", err)
	}
	if _, err := store.Reminders().AddReminder(ctx, memory.Reminder{UserID: 9, ChatID: 9, Text: nul, DueAt: time.Now().Add(time.Hour)}); err != nil {
		t.Fatalf("reminder with NUL: %v", err)
	}

	// Clean payloads are kept exactly as Telegram sent them (jsonb spacing aside).
	var stored string
	store.Pool().QueryRow(ctx, `SELECT payload::text FROM updates WHERE update_id = 2`).Scan(&stored)
	if !strings.Contains(stored, `"text": "fine"`) {
		t.Fatalf("clean payload stored as %s", stored)
	}
}
