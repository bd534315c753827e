package bot_test

import (
	"testing"
	"time"

	"github.com/membot/membot/internal/stamp"
	"github.com/membot/membot/internal/testing/telegramfake"
)

// A message written minutes before it is taken up (the chat was busy, the
// bot was down) is stamped with when it was written — the message's own
// Telegram date — not when it was processed (the row's created_at stays
// when it was stored: background jobs read rows in that order). A date
// ahead of the clock is not believed.
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
	if n := h.Count(`SELECT count(*) FROM messages WHERE role = 'user' AND content = $1`, want); n != 1 {
		var content string
		h.DB.QueryRow(t.Context(), `SELECT content FROM messages WHERE role = 'user'`).Scan(&content)
		t.Fatalf("the user row is %q; want %q", content, want)
	}

	ahead := telegramfake.TextMessage(jane.ID, "private", jane, "from the future")
	future := time.Now().Add(time.Hour)
	ahead["date"] = future.Unix()
	h.WaitDone(h.TG.AddUpdate("message", ahead))
	if n := h.Count(`SELECT count(*) FROM messages WHERE role = 'user' AND content = $1`, stamp.Add(future, moscow, "from the future")); n != 0 {
		t.Fatal("a date ahead of the clock was believed")
	}
}
