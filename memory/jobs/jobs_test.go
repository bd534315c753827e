package jobs_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/membot/membot/internal/testing/pgtest"
	"github.com/membot/membot/internal/testing/wait"
	"github.com/membot/membot/memory/jobs"
)

// setup is the jobs' store over a fresh migrated database, and its pool to
// write the rows the jobs read.
func setup(t *testing.T) (*jobs.Store, *pgxpool.Pool) {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return jobs.New(pool), pool
}

// conversation adds a conversation of chat and returns its id.
func conversation(t *testing.T, pool *pgxpool.Pool, chat int64) string {
	t.Helper()
	var id string
	if err := pool.QueryRow(context.Background(), `INSERT INTO conversations (telegram_user_id, chat_id) VALUES ($1, $1) RETURNING id::text`, chat).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// row adds a message and returns its id; extra is "" or SQL assignments
// of the other columns, as "tool_name = 'x'".
func row(t *testing.T, pool *pgxpool.Pool, conv, role, content string, extra ...string) int64 {
	t.Helper()
	var id int64
	if err := pool.QueryRow(context.Background(), `INSERT INTO messages (conversation_id, role, content) VALUES ($1, $2, $3) RETURNING id`,
		conv, role, content).Scan(&id); err != nil {
		t.Fatal(err)
	}
	for _, set := range extra {
		if _, err := pool.Exec(context.Background(), `UPDATE messages SET `+set+` WHERE id = $1`, id); err != nil {
			t.Fatal(err)
		}
	}
	return id
}

func TestALeaseIsHeldByOneAndTheCursorOnlyMovesOn(t *testing.T) {
	t.Parallel()
	store, pool := setup(t)
	ctx := context.Background()
	cursor, ok, err := store.LeaseJob(ctx, jobs.Embeddings, time.Minute)
	if err != nil || !ok || cursor != 0 {
		t.Fatalf("first lease = %d, %v, %v; want 0, held", cursor, ok, err)
	}
	if _, ok, err := store.LeaseJob(ctx, jobs.Embeddings, time.Minute); ok || err != nil {
		t.Fatalf("a second lease while held = %v, %v; want refused", ok, err)
	}
	if _, ok, _ := store.LeaseJob(ctx, jobs.AfterTurn, time.Minute); !ok {
		t.Fatal("one job's lease held another's")
	}
	if err := store.ReleaseJob(ctx, jobs.Embeddings, 42); err != nil {
		t.Fatal(err)
	}
	if cursor, ok, _ := store.LeaseJob(ctx, jobs.Embeddings, time.Millisecond); !ok || cursor != 42 {
		t.Fatalf("after release: %d, %v; want 42, held", cursor, ok)
	}
	if err := store.ReleaseJob(ctx, jobs.Embeddings, 7); err != nil { // an older cursor
		t.Fatal(err)
	}
	batch := &pgx.Batch{}
	jobs.QueueCursor(batch, jobs.Embeddings, 50)
	jobs.QueueCursor(batch, jobs.Embeddings, 45)
	if err := pool.SendBatch(ctx, batch).Close(); err != nil {
		t.Fatal(err)
	}
	if cursor, ok, _ := store.LeaseJob(ctx, jobs.Embeddings, time.Millisecond); !ok || cursor != 50 {
		t.Fatalf("after an older release and two moves: %d, %v; want 50, held", cursor, ok)
	}
	// A lease of 1 ms: taken again once past.
	if !wait.Until(time.Millisecond, func() bool { _, ok, _ := store.LeaseJob(ctx, jobs.Embeddings, time.Minute); return ok }) {
		t.Error("an expired lease is not taken again")
	}
}

func TestRowsToEmbed(t *testing.T) {
	t.Parallel()
	store, pool := setup(t)
	ctx := context.Background()
	conv := conversation(t, pool, 1)
	question := row(t, pool, conv, "user", "[Текущее время: 2030-01-01 10:00] what is 6*7?")
	row(t, pool, conv, "tool", "42", "tool_call_id = 'c1', tool_name = 'calculator'")
	row(t, pool, conv, "system", "Tools used: calculator")
	long := row(t, pool, conv, "assistant", strings.Repeat("я", 5000))
	last := row(t, pool, conv, "assistant", "bye")

	got, err := store.RowsToEmbed(ctx, 0, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, r := range got {
		ids = append(ids, r.ID)
		if r.ConversationID != conv {
			t.Errorf("row %d of conversation %s, want %s", r.ID, r.ConversationID, conv)
		}
	}
	if !slices.Equal(ids, []int64{question, long, last}) {
		t.Fatalf("rows to embed %v, want the user and assistant rows %v", ids, []int64{question, long, last})
	}
	if got[0].Text != "what is 6*7?" || len([]rune(got[1].Text)) != 4000 {
		t.Errorf("texts %q and %d runes; want the stamp off and at most 4000 runes", got[0].Text, len([]rune(got[1].Text)))
	}
	if got, _ := store.RowsToEmbed(ctx, question, 1, 0); len(got) != 1 || got[0].ID != long {
		t.Errorf("after the cursor, one: %+v; want row %d", got, long)
	}
	if got, _ := store.RowsToEmbed(ctx, 0, 10, time.Hour); len(got) != 0 {
		t.Errorf("%d rows not settled for an hour given", len(got))
	}
	if id, err := store.NewestMessageID(ctx); err != nil || id != last {
		t.Errorf("NewestMessageID = %d, %v; want %d", id, err, last)
	}
}

func TestAnsweredTurns(t *testing.T) {
	t.Parallel()
	store, pool := setup(t)
	ctx := context.Background()
	if id, err := store.NewestMessageID(ctx); err != nil || id != 0 {
		t.Fatalf("NewestMessageID of none = %d, %v", id, err)
	}
	conv := conversation(t, pool, 5)
	ask := row(t, pool, conv, "user", "[Текущее время: 2030-01-01 10:00] fetch it", `metadata = '{"forwarded": true, "media": [{"kind": "photo"}]}'`,
		`written_at = '2030-01-01 07:00Z'`)
	row(t, pool, conv, "assistant", "", `tool_calls = '[{"id":"c1","name":"fetch_url","arguments":"{}"}]'`)
	row(t, pool, conv, "tool", "page", "tool_call_id = 'c1', tool_name = 'fetch_url'")
	row(t, pool, conv, "tool", "4", "tool_call_id = 'c2', tool_name = 'calculator'")
	answer := row(t, pool, conv, "assistant", "here it is")
	run := row(t, pool, conv, "user", "weather", `metadata = '{"scheduled": {"task_id": 3}, "author_id": 77}'`)
	row(t, pool, conv, "assistant", "forgotten answer", "forgotten = true")
	second := row(t, pool, conv, "assistant", "sunny")

	got, err := store.AnsweredTurns(ctx, 0, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("%d answered turns, want 2 (not the tool call, not the forgotten answer): %+v", len(got), got)
	}
	first := got[0]
	if first.AnswerID != answer || first.UserMessageID != ask || first.UserText != "fetch it" || first.AnswerText != "here it is" ||
		first.ChatID != 5 || first.UserID != 5 || first.UserMedia != "photo" || !first.UserForwarded || first.UserScheduled ||
		!slices.Equal(first.Tools, []string{"calculator", "fetch_url"}) || !first.At.Equal(time.Date(2030, 1, 1, 7, 0, 0, 0, time.UTC)) {
		t.Errorf("first turn %+v", first)
	}
	if s := got[1]; s.AnswerID != second || s.UserMessageID != run || s.UserID != 77 || !s.UserScheduled || s.UserForwarded || len(s.Tools) != 0 {
		t.Errorf("second turn %+v; want the scheduled run of user 77 without tools", s)
	}
	if got, _ := store.AnsweredTurns(ctx, answer, 10, 0); len(got) != 1 || got[0].AnswerID != second {
		t.Errorf("after the cursor: %+v", got)
	}
	if got, _ := store.AnsweredTurns(ctx, 0, 10, time.Hour); len(got) != 0 {
		t.Errorf("%d turns not settled for an hour given", len(got))
	}
}
