package memory_test

import (
	"context"
	"testing"

	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/userdata"
)

// /new deletes the conversation's messages; what pointed at them (a fact's
// source, a reminder's source, an approval's assistant row) is set to NULL
// by the trigger of migration 00006, and nothing else is touched.
func TestDeletedMessagesAreForgottenByWhatReferredToThem(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	turn, err := store.StartTurn(ctx, memory.TurnStart{User: alice, Chat: memory.Chat{ID: 42}, UpdateID: 1, Content: "remember: I like tea", HistoryLimit: 30})
	if err != nil {
		t.Fatal(err)
	}
	bob := memory.User{TelegramUserID: 43, FirstName: "Bob"}
	kept, err := store.StartTurn(ctx, memory.TurnStart{User: bob, Chat: memory.Chat{ID: 43}, UpdateID: 2, Content: "and I like coffee", HistoryLimit: 30})
	if err != nil {
		t.Fatal(err)
	}
	db := store.Pool()
	for _, id := range []int64{turn.UserMessageID, kept.UserMessageID} {
		_, err := db.Exec(ctx, `INSERT INTO memories (telegram_user_id, content, source_message_id) VALUES (42, 'likes tea', $1)`, id)
		if err == nil {
			_, err = db.Exec(ctx, `INSERT INTO reminders (telegram_user_id, chat_id, text, due_at, source_message_id)
				VALUES (42, 42, 'tea', now() + interval '1 hour', $1)`, id)
		}
		if err == nil {
			_, err = db.Exec(ctx, `INSERT INTO pending_approvals (request_id, subject, details, telegram_user_id, chat_id, assistant_message_id)
				VALUES ('call_1', 'fetch_url', '{}', 42, 42, $1)`, id)
		}
		if err != nil {
			t.Fatal(err)
		}
	}

	if _, err := store.Reset(ctx, memory.Chat{ID: 42}, 42); err != nil {
		t.Fatal(err)
	}
	purgeAll(t, store)
	var gone, left int
	err = db.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM memories WHERE source_message_id = $1) + (SELECT count(*) FROM reminders WHERE source_message_id = $1)
			+ (SELECT count(*) FROM pending_approvals WHERE assistant_message_id = $1),
		(SELECT count(*) FROM memories WHERE source_message_id = $2) + (SELECT count(*) FROM reminders WHERE source_message_id = $2)
			+ (SELECT count(*) FROM pending_approvals WHERE assistant_message_id = $2)`,
		turn.UserMessageID, kept.UserMessageID).Scan(&gone, &left)
	if err != nil {
		t.Fatal(err)
	}
	if gone != 0 || left != 3 {
		t.Fatalf("references to the deleted message: %d (want 0); to the other chat's: %d (want 3)", gone, left)
	}
	var rows int
	db.QueryRow(ctx, `SELECT (SELECT count(*) FROM memories) + (SELECT count(*) FROM reminders) + (SELECT count(*) FROM pending_approvals)`).Scan(&rows)
	if rows != 6 {
		t.Fatalf("%d rows left in memories, reminders and pending_approvals, want all 6", rows)
	}
}

// admin forget beside a turn of the same user: the turn has upserted
// the user and is about to store its message in their conversation. The
// two wait for each other one after the other, never in a deadlock.
func TestForgetBesideATurnOfTheUserDoesNotDeadlock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	if _, err := store.Pool().Exec(ctx, `INSERT INTO users (telegram_user_id) VALUES (42)`); err != nil {
		t.Fatal(err)
	}
	conv, _ := store.CurrentConversation(ctx, memory.Chat{ID: 42}, 42)
	say(t, store, conv, "hello", "hi")
	turn, err := store.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer turn.Rollback(ctx)
	if _, err := turn.Exec(ctx, `INSERT INTO users (telegram_user_id) VALUES (42)
		ON CONFLICT (telegram_user_id) DO UPDATE SET last_seen_at = now()`); err != nil {
		t.Fatal(err)
	}
	forgot := make(chan error, 1)
	go func() { _, err := userdata.New(store.Pool()).Forget(ctx, 42); forgot <- err }()
	if !waitForLockOrDone(t, store, forgot) {
		t.Fatalf("forget did not wait for the turn's lock on the user: %v", <-forgot)
	}
	if _, err := turn.Exec(ctx, `INSERT INTO messages (conversation_id, role, content) VALUES ($1, 'user', 'more')`, conv); err != nil {
		t.Fatalf("the turn's message: %v", err)
	}
	if err := turn.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-forgot; err != nil {
		t.Fatalf("forget: %v", err)
	}
	var left int
	if err := store.Pool().QueryRow(ctx, `SELECT count(*) FROM messages WHERE conversation_id = $1`, conv).Scan(&left); err != nil || left != 0 {
		t.Fatalf("after forget the conversation has %d messages, %v; want none", left, err)
	}
}
