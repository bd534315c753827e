package memory_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/membot/membot/memory"
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
	update := func(id int64, text string) memory.InboxUpdate {
		return memory.InboxUpdate{UpdateID: id, ChatID: 7,
			Payload: []byte(fmt.Sprintf(`{"update_id":%d,"message":{"chat":{"id":7},"text":%q}}`, id, text))}
	}
	save := func(u memory.InboxUpdate) int64 {
		t.Helper()
		batch := []memory.InboxUpdate{u}
		if _, err := store.SaveAndClaim(ctx, batch, 0, nil); err != nil {
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
	if n, err := store.AdoptUpdates(ctx, 100); err != nil || n != 1 {
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
	if _, err := store.AdoptUpdates(ctx, 200); err != nil {
		t.Fatal(err)
	}
	if got := save(update(6, "next")); got != 8 {
		t.Fatalf("another bot's update 6 was stored as %d, want 8", got)
	}
	// An id the retention purge freed in the inbox is still held while a
	// row of that update remains (here its once-per-update event): the
	// new update is not taken for it.
	if _, err := store.Pool().Exec(ctx, `INSERT INTO events (type, update_id) VALUES ('message_received', 50)`); err != nil {
		t.Fatal(err)
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
		u, err := store.ClaimNext(ctx, 7, 1)
		if err != nil || u == nil {
			break
		}
		order = append(order, u.UpdateID)
		if err := store.Complete(ctx, u.UpdateID, nil, ""); err != nil {
			t.Fatal(err)
		}
	}
	if fmt.Sprint(order) != "[5 6 7 8 51]" {
		t.Errorf("claimed in the order %v", order)
	}
}
