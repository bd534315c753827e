package memory_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/purge"
	"github.com/membot/membot/memory/queue"
)

// The inbox knows an update by its bot and what Telegram sent: the same
// update delivered again is stored once, but an update whose id an earlier
// one holds (another bot's, or from before the Bot API's ids started again)
// is stored under the next free id, never dropped; rows stored before the
// inbox knew bots are adopted by the bot that starts next.
func TestInboxKnowsUpdatesByBotAndContent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	update := func(id int64, text string) queue.Update {
		return queue.Update{UpdateID: id, ChatID: 7,
			Payload: []byte(fmt.Sprintf(`{"update_id":%d,"message":{"chat":{"id":7},"text":%q}}`, id, text))}
	}
	save := func(u queue.Update) int64 {
		t.Helper()
		batch := []queue.Update{u}
		if _, err := store.Inbox().SaveAndClaim(ctx, batch, 0, nil); err != nil {
			t.Fatalf("save %d: %v", u.UpdateID, err)
		}
		return batch[0].StoredAs
	}
	count := func(query string) (n int) {
		t.Helper()
		if err := store.Pool().QueryRow(ctx, query).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// Stored before the bot's id was known: bot 0, then adopted.
	if got := save(update(5, "old")); got != 5 {
		t.Fatalf("first update stored as %d", got)
	}
	if n, err := store.Inbox().AdoptUpdates(ctx, 100); err != nil || n != 1 {
		t.Fatalf("adopted %d, %v; want 1", n, err)
	}
	if got := save(update(5, "old")); got != 0 { // delivered again across the upgrade
		t.Fatalf("a known update was stored again, as %d", got)
	}
	if got := save(update(6, "next")); got != 6 {
		t.Fatalf("the next update stored as %d", got)
	}
	// The Bot API's ids start again: 5 is a new update now.
	if got := save(update(5, "new")); got != 7 {
		t.Fatalf("a reused id was stored as %d, want 7 (after every other)", got)
	}
	if got := save(update(5, "new")); got != 0 {
		t.Fatalf("a renumbered update delivered again was stored again, as %d", got)
	}
	// Another bot on the same database: its update 6 is its own.
	if _, err := store.Inbox().AdoptUpdates(ctx, 200); err != nil {
		t.Fatal(err)
	}
	if got := save(update(6, "next")); got != 8 {
		t.Fatalf("another bot's update 6 was stored as %d, want 8", got)
	}
	// An id the retention purge freed in the inbox is still held while a
	// row of that update remains (here its once-per-update event): the
	// new update is not taken for it.
	if got := save(update(50, "before a purge")); got != 50 {
		t.Fatalf("update 50 stored as %d", got)
	}
	for _, sql := range []string{`INSERT INTO events (type, update_id) VALUES ('message_received', 50)`,
		`DELETE FROM updates WHERE update_id = 50`} { // as the purge deletes
		if _, err := store.Pool().Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	if n := count(`SELECT max(through) FROM updates_freed`); n != 50 {
		t.Fatalf("the inbox freed ids through %d, want 50", n)
	}
	if got := save(update(50, "after a purge")); got != 51 {
		t.Fatalf("an id an event still names was stored as %d, want 51", got)
	}
	if n := count(`SELECT count(*) FROM updates WHERE bot_id = 100`); n != 3 {
		t.Errorf("%d updates of bot 100, want 3", n)
	}
	if n := count(`SELECT count(*) FROM updates WHERE bot_id = 200 AND (payload->>'update_id')::bigint = 6 AND update_id = 8`); n != 1 {
		t.Errorf("bot 200's update is not kept under its new id with Telegram's in the payload")
	}
	// The chat's order holds: the renumbered updates come after the others.
	var order []int64
	for {
		u, err := store.Inbox().ClaimNext(ctx, 7, 1)
		if err != nil || u == nil {
			break
		}
		order = append(order, u.UpdateID)
		if err := store.Inbox().Complete(ctx, u.UpdateID, nil, ""); err != nil {
			t.Fatal(err)
		}
	}
	if fmt.Sprint(order) != "[5 6 7 8 51]" {
		t.Errorf("claimed in the order %v", order)
	}
}

// Whatever deletes inbox rows (here the retention purge, then a plain
// DELETE) raises the bound above which a new update's id can only be held
// by the inbox itself (migration 00025); it never comes down. An update
// with an id at or below it is still checked against every table.
func TestTheInboxRemembersWhichIdsItFreed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	freed := func() (through int64) {
		t.Helper()
		if err := store.Pool().QueryRow(ctx, `SELECT max(through) FROM updates_freed`).Scan(&through); err != nil {
			t.Fatal(err)
		}
		return through
	}
	for _, id := range []int64{10, 20} {
		u := []queue.Update{{UpdateID: id, ChatID: 7, Payload: []byte(fmt.Sprintf(`{"update_id":%d}`, id))}}
		if _, err := store.Inbox().SaveAndClaim(ctx, u, 0, nil); err != nil || u[0].StoredAs != id {
			t.Fatalf("save %d: stored as %d, %v", id, u[0].StoredAs, err)
		}
		if err := store.Inbox().Complete(ctx, id, nil, ""); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := purge.NewStore(store.Pool()).PurgeExpired(ctx, time.Now().Add(time.Hour)); err != nil || n < 2 {
		t.Fatalf("purged %d rows, %v", n, err)
	}
	// A row of update 20 outlives its inbox row (events are purged by their own age).
	if _, err := store.Pool().Exec(ctx, `INSERT INTO events (type, update_id) VALUES ('reply_sent', 20)`); err != nil {
		t.Fatal(err)
	}
	if got := freed(); got != 20 {
		t.Fatalf("after the purge the inbox freed ids through %d, want 20", got)
	}
	u := []queue.Update{{UpdateID: 20, ChatID: 7, Payload: []byte(`{"update_id":20,"again":true}`)}}
	if _, err := store.Inbox().SaveAndClaim(ctx, u, 0, nil); err != nil || u[0].StoredAs != 21 {
		t.Fatalf("an id an event still names was stored as %d (%v), want 21", u[0].StoredAs, err)
	}
	if _, err := store.Pool().Exec(ctx, `DELETE FROM updates WHERE update_id = 21`); err != nil {
		t.Fatal(err)
	}
	if got := freed(); got != 21 {
		t.Fatalf("after a DELETE the inbox freed ids through %d, want 21", got)
	}
	if _, err := store.Pool().Exec(ctx, `DELETE FROM updates`); err != nil { // nothing left: the bound stays
		t.Fatal(err)
	}
	if got := freed(); got != 21 {
		t.Fatalf("the bound came down to %d", got)
	}
	// Above the bound, a message of the id still holds it (the purge may be
	// deleting its inbox row while the new update is saved).
	if _, err := store.Pool().Exec(ctx, `INSERT INTO messages (conversation_id, role, content, update_id)
		VALUES ($1, 'user', 'old', 30)`, conversation(t, store)); err != nil {
		t.Fatal(err)
	}
	u = []queue.Update{{UpdateID: 30, ChatID: 7, Payload: []byte(`{"update_id":30}`)}}
	if _, err := store.Inbox().SaveAndClaim(ctx, u, 0, nil); err != nil || u[0].StoredAs != 31 {
		t.Fatalf("an id a message names was stored as %d (%v), want 31", u[0].StoredAs, err)
	}
}

// conversation is the current conversation of user 7's chat.
func conversation(t *testing.T, store *memory.Store) string {
	t.Helper()
	conv, err := store.CurrentConversation(context.Background(), memory.Chat{ID: 7}, 7)
	if err != nil {
		t.Fatal(err)
	}
	return conv
}
