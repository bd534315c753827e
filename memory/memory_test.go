package memory_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"testing"

	"github.com/membot/membot/internal/testing/pgtest"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/purge"
	"github.com/membot/membot/memory/queue"
)

func open(t *testing.T) *memory.Store {
	t.Helper()
	store, err := memory.Open(context.Background(), pgtest.New(t), 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(store.Close)
	return store
}

var alice = memory.User{TelegramUserID: 42, Username: "alice", FirstName: "Alice", LanguageCode: "en"}

func TestStartTurnStoresTheMessageOnceAndLoadsHistory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)

	first, err := store.StartTurn(ctx, memory.TurnStart{User: alice, Chat: memory.Chat{ID: 42}, UpdateID: 1000, TelegramMessageID: 7, Content: "hello", HistoryLimit: 30})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.History) != 1 || first.History[0].Content != "hello" || first.History[0].Role != memory.RoleUser {
		t.Fatalf("history after first turn = %+v", first.History)
	}
	if first.History[0].UpdateID != 1000 || first.History[0].TelegramMessageID != 7 || first.Answer != nil {
		t.Fatalf("first turn = %+v", first)
	}
	ids, err := store.AppendMessages(ctx, first.ConversationID, memory.Message{Role: memory.RoleAssistant, Content: "hi!", UpdateID: 1000})
	if err != nil {
		t.Fatal(err)
	}

	// The same update again (a retry after a crash): nothing new is stored
	// and the earlier answer is found.
	again, err := store.StartTurn(ctx, memory.TurnStart{User: alice, Chat: memory.Chat{ID: 42}, UpdateID: 1000, Content: "hello", HistoryLimit: 30})
	if err != nil {
		t.Fatal(err)
	}
	if again.ConversationID != first.ConversationID || again.UserMessageID != first.UserMessageID {
		t.Fatalf("retry moved the turn: %+v vs %+v", again, first)
	}
	if len(again.History) != 2 {
		t.Fatalf("retry history = %d rows, want 2", len(again.History))
	}
	if again.Answer == nil || again.Answer.ID != ids[0] || again.Answer.Content != "hi!" {
		t.Fatalf("retry answer = %+v, want row %d", again.Answer, ids[0])
	}

	var users, names int
	store.Pool().QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE username = 'alice') FROM users`).Scan(&users, &names)
	if users != 1 || names != 1 {
		t.Fatalf("users=%d with name=%d, want 1 and 1", users, names)
	}
}

func TestLastMessagesIsNewestRowsOldestFirst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	conv, err := store.CurrentConversation(ctx, memory.Chat{ID: 5}, 5)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []memory.Message
	for i := range 40 {
		msgs = append(msgs, memory.Message{Role: memory.RoleUser, Content: fmt.Sprint(i)})
	}
	if _, err := store.AppendMessages(ctx, conv, msgs...); err != nil {
		t.Fatal(err)
	}
	got, err := store.LastMessages(ctx, conv, 30)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 30 || got[0].Content != "10" || got[29].Content != "39" {
		t.Fatalf("got %d rows from %q to %q, want 30 from 10 to 39", len(got), got[0].Content, got[len(got)-1].Content)
	}
	if again, _ := store.CurrentConversation(ctx, memory.Chat{ID: 5}, 5); again != conv {
		t.Fatalf("current conversation changed: %s then %s", conv, again)
	}
}

func TestToolCallsRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	conv, _ := store.CurrentConversation(ctx, memory.Chat{ID: 1}, 1)
	calls := []memory.ToolCall{{ID: "call_1", Name: "calculator", Arguments: `{"expression":"2+2"}`,
		Extra: json.RawMessage(`{"extra_content":{"google":{"thought_signature":"c2ln"}}}`)}}
	_, err := store.AppendMessages(ctx, conv,
		memory.Message{Role: memory.RoleAssistant, ToolCalls: calls},
		memory.Message{Role: memory.RoleTool, Content: "4", ToolCallID: "call_1", ToolName: "calculator", Metadata: map[string]any{"duration_ms": 1}},
	)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := store.LastMessages(ctx, conv, 10)
	if len(got) != 2 || len(got[0].ToolCalls) != 1 || got[0].ToolCalls[0].ID != "call_1" ||
		got[0].ToolCalls[0].Arguments != calls[0].Arguments || !sameJSON(got[0].ToolCalls[0].Extra, calls[0].Extra) {
		t.Fatalf("tool calls = %+v", got)
	}
	if got[1].ToolCallID != "call_1" || got[1].ToolName != "calculator" || got[1].Metadata["duration_ms"] != float64(1) {
		t.Fatalf("tool row = %+v", got[1])
	}
}

func TestResetDeletesTheChatsConversationsOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	mine, _ := store.CurrentConversation(ctx, memory.Chat{ID: 1}, 1)
	other, _ := store.CurrentConversation(ctx, memory.Chat{ID: 2}, 2)
	store.AppendMessages(ctx, mine, memory.Message{Role: memory.RoleUser, Content: "mine"})
	store.AppendMessages(ctx, other, memory.Message{Role: memory.RoleUser, Content: "other"})

	fresh, err := store.Reset(ctx, memory.Chat{ID: 1}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if fresh == mine {
		t.Fatal("reset kept the old conversation id")
	}
	if cur, _ := store.CurrentConversation(ctx, memory.Chat{ID: 1}, 1); cur != fresh {
		t.Fatalf("current = %s, want the fresh %s", cur, fresh)
	}
	if got, _ := store.LastMessages(ctx, fresh, 30); len(got) != 0 {
		t.Fatalf("the fresh conversation holds %d messages", len(got))
	}
	// Before the purge, what /new deleted is already out of the log.
	var logged int
	store.Pool().QueryRow(ctx, `SELECT count(*) FROM conversation_log WHERE content = 'mine'`).Scan(&logged)
	if logged != 0 {
		t.Fatal("conversation_log shows a message /new deleted")
	}
	if b, err := store.Inbox().InboxBacklog(ctx); err != nil || b.ToPurge != 1 {
		t.Fatalf("backlog before the purge = %+v, %v; want one conversation to purge", b, err)
	}
	purgeAll(t, store)
	if b, _ := store.Inbox().InboxBacklog(ctx); b.ToPurge != 0 || b.PurgeAge != 0 {
		t.Fatalf("backlog after the purge = %+v", b)
	}
	var left, others, conversations int
	store.Pool().QueryRow(ctx, `SELECT count(*) FILTER (WHERE content = 'mine'), count(*) FILTER (WHERE content = 'other') FROM messages`).Scan(&left, &others)
	store.Pool().QueryRow(ctx, `SELECT count(*) FROM conversations WHERE chat_id = 1`).Scan(&conversations)
	if left != 0 || others != 1 || conversations != 1 {
		t.Fatalf("after reset and purge: %d of mine, %d of the other chat, %d conversations of mine; want 0, 1, 1", left, others, conversations)
	}
}

// purgeAll runs PurgeReset until nothing is left and returns what each
// call deleted.
func purgeAll(t testing.TB, store *memory.Store) []int64 {
	t.Helper()
	var batches []int64
	for {
		n, err := purge.NewStore(store.Pool()).PurgeReset(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return batches
		}
		batches = append(batches, n)
	}
}

func TestThePurgeDeletesALongConversationInBatches(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	old, _ := store.CurrentConversation(ctx, memory.Chat{ID: 1}, 1)
	if _, err := store.Pool().Exec(ctx, `INSERT INTO messages (conversation_id, role, content)
		SELECT $1, 'user', 'm' || g FROM generate_series(1, 12000) g`, old); err != nil {
		t.Fatal(err)
	}
	store.Reset(ctx, memory.Chat{ID: 1}, 1)
	// 5,000 and 5,000 messages, then the last 2,000 with the conversation.
	if got := fmt.Sprint(purgeAll(t, store)); got != "[5000 5000 2001]" {
		t.Fatalf("purge batches = %s", got)
	}
	var left int
	store.Pool().QueryRow(ctx, `SELECT count(*) FROM conversations WHERE id = $1`, old).Scan(&left)
	if left != 0 {
		t.Fatal("the purged conversation is still there")
	}
}

func TestInboxHandsOutEachChatsUpdatesInOrderToOneOwner(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	updates := []queue.Update{
		{UpdateID: 11, ChatID: 1, Payload: []byte(`{"update_id":11}`)},
		{UpdateID: 12, ChatID: 1, Payload: []byte(`{"update_id":12}`)},
		{UpdateID: 13, ChatID: 2, Payload: []byte(`{"update_id":13}`)},
	}
	if err := store.Inbox().SaveUpdates(ctx, updates); err != nil {
		t.Fatal(err)
	}
	if err := store.Inbox().SaveUpdates(ctx, updates[:1]); err != nil { // delivered twice
		t.Fatalf("saving a known update again: %v", err)
	}
	lockCtx, stop := context.WithCancel(ctx)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	a := store.Inbox().HoldOwnerLock(lockCtx, log)

	u, err := store.Inbox().ClaimNext(ctx, 1, a.ID)
	if err != nil || u == nil || u.UpdateID != 11 || u.Attempts != 1 || string(u.Payload) != `{"update_id": 11}` {
		t.Fatalf("first claim = %+v, %v", u, err)
	}
	// Another live owner gets nothing of chat 1 while 11 is in hand...
	b := store.Inbox().HoldOwnerLock(ctx, log)
	if u, err := store.Inbox().ClaimNext(ctx, 1, b.ID); u != nil || err != nil {
		t.Fatalf("second owner claimed %+v, %v while the first is alive", u, err)
	}
	// ...but may take another chat.
	if u, _ := store.Inbox().ClaimNext(ctx, 2, b.ID); u == nil || u.UpdateID != 13 {
		t.Fatalf("chat 2 claim = %+v", u)
	}
	// When the first owner dies, its update is taken over, not skipped.
	stop()
	a.Wait()
	u, err = store.Inbox().ClaimNext(ctx, 1, b.ID)
	if err != nil || u == nil || u.UpdateID != 11 || u.Attempts != 2 {
		t.Fatalf("takeover claim = %+v, %v", u, err)
	}
	// Asking whether the dead owner lives took its lock, shared, only for
	// the claim's transaction: a process that draws the same id gets it.
	var relocked bool
	if err := store.Pool().QueryRow(ctx, `SELECT pg_try_advisory_xact_lock(1835363682, $1::int4)`, a.ID).Scan(&relocked); err != nil || !relocked {
		t.Fatalf("the dead owner's lock is still held after the takeover (%v)", err)
	}
	var bAlive, nobodyAlive bool
	err = store.Pool().QueryRow(ctx, `SELECT membot_owner_alive($1), membot_owner_alive(NULL)`, b.ID).Scan(&bAlive, &nobodyAlive)
	if err != nil || !bAlive || nobodyAlive {
		t.Fatalf("alive: the live owner %v (want true), no owner %v (want false), %v", bAlive, nobodyAlive, err)
	}
	if err := store.Inbox().Complete(ctx, 11, nil, ""); err != nil {
		t.Fatal(err)
	}
	if u, _ := store.Inbox().ClaimNext(ctx, 1, b.ID); u == nil || u.UpdateID != 12 {
		t.Fatalf("after completing 11, claim = %+v, want 12", u)
	}
	chats, err := store.Inbox().UnfinishedChats(ctx)
	if err != nil || len(chats) != 2 {
		t.Fatalf("unfinished chats = %v, %v; want 1 and 2", chats, err)
	}
}

func TestCompleteRecordsTheDelivery(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	store.Inbox().SaveUpdates(ctx, []queue.Update{{UpdateID: 5, ChatID: 1, Payload: []byte(`{}`)}})
	conv, _ := store.CurrentConversation(ctx, memory.Chat{ID: 1}, 1)
	ids, _ := store.AppendMessages(ctx, conv, memory.Message{Role: memory.RoleAssistant, Content: "answer"})
	if err := store.Inbox().Complete(ctx, 5, &queue.Delivery{MessageID: ids[0], TelegramMessageIDs: []int64{100, 101}}, ""); err != nil {
		t.Fatal(err)
	}
	got, _ := store.LastMessages(ctx, conv, 1)
	if got[0].TelegramMessageID != 100 || fmt.Sprint(got[0].Metadata["telegram_message_ids"]) != "[100 101]" {
		t.Fatalf("delivered row = %+v", got[0])
	}
	var state string
	store.Pool().QueryRow(ctx, `SELECT state FROM updates WHERE update_id = 5`).Scan(&state)
	if state != "done" {
		t.Fatalf("update state = %q", state)
	}
}

func sameJSON(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}
