package bot_test

import (
	"testing"
	"time"

	"github.com/membot/membot/internal/stamp"
	"github.com/membot/membot/internal/telegramfake"
)

// A message written minutes before it is taken up (the chat was busy, the
// bot was down) is stamped with when it was written — the message's own
// Telegram date — not when it was processed; its row's created_at too. A
// date ahead of the clock is not believed.
func TestAUserRowIsStampedWithTheMessagesOwnDate(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Start()
	moscow, err := time.LoadLocation("Europe/Moscow")
	if err != nil {
		t.Fatal(err)
	}
	written := time.Now().Add(-3 * time.Minute).Truncate(time.Second)
	msg := telegramfake.TextMessage(jane.ID, "private", jane, "written a while ago")
	msg["date"] = written.Unix()
	h.WaitDone(h.TG.AddUpdate("message", msg))

	want := stamp.Add(written, moscow, "written a while ago")
	if n := h.Count(`SELECT count(*) FROM messages WHERE role = 'user' AND content = $1 AND created_at = $2`, want, written); n != 1 {
		var content string
		var created time.Time
		h.DB.QueryRow(t.Context(), `SELECT content, created_at FROM messages WHERE role = 'user'`).Scan(&content, &created)
		t.Fatalf("the user row is %q, created %s; want %q, created %s", content, created, want, written)
	}

	ahead := telegramfake.TextMessage(jane.ID, "private", jane, "from the future")
	ahead["date"] = time.Now().Add(time.Hour).Unix()
	h.WaitDone(h.TG.AddUpdate("message", ahead))
	if n := h.Count(`SELECT count(*) FROM messages WHERE role = 'user' AND content LIKE '%from the future' AND created_at <= now()`); n != 1 {
		t.Fatal("a date ahead of the clock was believed")
	}
}
