package purge_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/membot/membot/internal/testing/pgtest"
	"github.com/membot/membot/memory/purge"
)

func setup(t *testing.T) (*purge.Store, *pgxpool.Pool) {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return purge.NewStore(pool), pool
}

func count(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// conversation adds a conversation with rows messages, reset by /new when
// reset, and returns its id.
func conversation(t *testing.T, pool *pgxpool.Pool, chat int64, rows int, reset bool) string {
	t.Helper()
	var id string
	err := pool.QueryRow(context.Background(), `INSERT INTO conversations (telegram_user_id, chat_id, reset_at)
		VALUES ($1, $1, CASE WHEN $2 THEN now() END) RETURNING id::text`, chat, reset).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(context.Background(), `INSERT INTO messages (conversation_id, role, content)
		SELECT $1, 'user', 'm' || i FROM generate_series(1, $2::int) i`, id, rows); err != nil {
		t.Fatal(err)
	}
	return id
}

// What /new left goes a batch at a time, each conversation after its
// messages; the current conversations stay.
func TestPurgeResetDeletesWhatNewLeftInBatches(t *testing.T) {
	t.Parallel()
	s, pool := setup(t)
	ctx := context.Background()
	big := conversation(t, pool, 1, purge.PurgeBatch+10, true)
	conversation(t, pool, 2, 3, true)
	kept := conversation(t, pool, 1, 4, false)

	var batches []int64
	for range 10 {
		n, err := s.PurgeReset(ctx)
		if err != nil {
			t.Fatal(err)
		}
		batches = append(batches, n)
		if n == 0 {
			break
		}
	}
	// The big one: a full batch, then its last 10 rows with itself; then the small one, whole.
	want := []int64{purge.PurgeBatch, 11, 4, 0}
	if len(batches) != len(want) {
		t.Fatalf("batches %v, want %v", batches, want)
	}
	for i := range want {
		if batches[i] != want[i] {
			t.Fatalf("batches %v, want %v", batches, want)
		}
	}
	if n := count(t, pool, `SELECT count(*) FROM conversations WHERE id = $1`, big); n != 0 {
		t.Error("the reset conversation is still there")
	}
	if n := count(t, pool, `SELECT count(*) FROM messages WHERE conversation_id = $1`, kept); n != 4 {
		t.Errorf("the current conversation has %d rows, want its 4", n)
	}
}

func TestPurgeExpiredDeletesOnlyOldOperationalRows(t *testing.T) {
	t.Parallel()
	s, pool := setup(t)
	ctx := context.Background()
	for _, sql := range []string{
		`INSERT INTO updates (update_id, chat_id, payload, digest, state, received_at) VALUES
			(1, 1, '{}', gen_random_uuid(), 'done', now() - interval '40 days'),
			(2, 1, '{}', gen_random_uuid(), 'pending', now() - interval '40 days'),
			(3, 1, '{}', gen_random_uuid(), 'done', now() - interval '40 days'),
			(4, 1, '{}', gen_random_uuid(), 'done', now())`,
		`INSERT INTO pending_approvals (request_id, subject, details, telegram_user_id, chat_id, update_id) VALUES ('c1', 'fetch_url', '{}', 1, 1, 3)`,
		`INSERT INTO events (type, occurred_at) VALUES ('x', now() - interval '40 days'), ('x', now())`,
		`INSERT INTO llm_calls (model, created_at) VALUES ('m', now() - interval '40 days'), ('m', now())`,
	} {
		if _, err := pool.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	conversation(t, pool, 1, 2, false) // conversations are kept, however old
	pool.Exec(ctx, `UPDATE messages SET created_at = now() - interval '400 days'`)

	n, err := s.PurgeExpired(ctx, time.Now().Add(-30*24*time.Hour))
	if err != nil || n != 3 {
		t.Fatalf("PurgeExpired = %d, %v; want 3 (update 1, an event, a call)", n, err)
	}
	if left := count(t, pool, `SELECT count(*) FROM updates`); left != 3 {
		t.Errorf("%d updates left, want 3 (the unfinished one, the one an approval waits on, the new one)", left)
	}
	if left := count(t, pool, `SELECT count(*) FROM events`) + count(t, pool, `SELECT count(*) FROM llm_calls`); left != 2 {
		t.Errorf("%d events and calls left, want the 2 new ones", left)
	}
	if left := count(t, pool, `SELECT count(*) FROM messages`); left != 2 {
		t.Errorf("%d messages left, want 2", left)
	}
	if n, err := s.PurgeExpired(ctx, time.Now().Add(-30*24*time.Hour)); n != 0 || err != nil {
		t.Errorf("a second purge = %d, %v; want nothing left", n, err)
	}
}
