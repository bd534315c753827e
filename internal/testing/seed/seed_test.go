package seed_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/membot/membot/internal/testing/pgtest"
	"github.com/membot/membot/internal/testing/seed"
)

// Seeded messages keep their stems as the bot's own do, so that search
// and auto-recall measured on a seeded database find what they would find
// on a real one; and the trigger that stems them is left as it was.
func TestSeededMessagesAreStemmedAsTheBotsAre(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := seed.Fill(ctx, pool, seed.Plan{Messages: 2000, Chats: 5, Giants: 1, GiantSize: 1000}); err != nil {
		t.Fatal(err)
	}
	var stemmed, wrong int
	if err := pool.QueryRow(ctx, `SELECT count(search_vector),
		count(*) FILTER (WHERE search_vector IS DISTINCT FROM membot_message_stems(role, content))
		FROM messages`).Scan(&stemmed, &wrong); err != nil {
		t.Fatal(err)
	}
	if stemmed < 1000 || wrong != 0 {
		t.Fatalf("%d seeded rows have stems and %d differ from membot_message_stems; want most of 2,000 and none", stemmed, wrong)
	}
	var enabled string
	if err := pool.QueryRow(ctx, `SELECT tgenabled FROM pg_trigger
		WHERE tgrelid = 'messages'::regclass AND tgname = 'messages_search_vector_insert'`).Scan(&enabled); err != nil {
		t.Fatal(err)
	}
	if enabled != "O" {
		t.Fatalf("after seeding the stems trigger is enabled %q; want O (as the migration left it)", enabled)
	}
}
