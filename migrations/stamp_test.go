package migrations_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/membot/membot/internal/stamp"
	"github.com/membot/membot/internal/testing/pgtest"
)

// The SQL function that full-text search uses strips exactly the stamp the
// Go side adds, so the two owners of the format cannot drift apart.
func TestPlainTextStripsTheStampGoAdds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	moscow, err := time.LoadLocation("Europe/Moscow")
	if err != nil {
		t.Fatal(err)
	}
	for _, content := range []string{
		stamp.Add(time.Date(2026, 3, 1, 21, 5, 0, 0, time.UTC), moscow, "купить хлеб [x] "),
		stamp.Add(time.Now(), time.UTC, ""),
		"no stamp here",
		"[Текущее время: broken",
	} {
		var plain string
		if err := conn.QueryRow(ctx, `SELECT membot_plain_text($1)`, content).Scan(&plain); err != nil {
			t.Fatal(err)
		}
		if want := stamp.Strip(content); plain != want {
			t.Errorf("membot_plain_text(%q) = %q, stamp.Strip = %q", content, plain, want)
		}
	}
}
