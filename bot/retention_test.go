package bot_test

import (
	"context"
	"testing"
)

// RETENTION_DAYS: the purger deletes finished updates, events and
// llm_calls older than that, and nothing else: not what is newer, not an
// update still being worked on, not one a pending approval answers, and
// never messages.
func TestRetentionDeletesOnlyWhatIsOld(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["RETENTION_DAYS"] = "40"
	h.Start()
	h.Say(jane, "hello") // today's rows of every kind
	h.WaitIdle()
	h.Stop()
	ctx := context.Background()
	for _, q := range []string{
		`INSERT INTO updates (update_id, chat_id, payload, state, received_at, digest) VALUES
			(900001, 502, '{"old":"done"}', 'done', now() - interval '41 days', gen_random_uuid()),
			(900003, 502, '{"old":"awaiting approval"}', 'done', now() - interval '41 days', gen_random_uuid()),
			(900004, 502, '{"recent":"done"}', 'done', now() - interval '39 days', gen_random_uuid())`,
		`INSERT INTO pending_approvals (request_id, subject, details, telegram_user_id, chat_id, update_id)
			VALUES ('call-1', 'fetch_url', '{}', 502, 502, 900003)`,
		`INSERT INTO events (type, occurred_at) VALUES ('old', now() - interval '41 days'), ('recent', now() - interval '39 days')`,
		`INSERT INTO llm_calls (model, created_at) VALUES ('old', now() - interval '41 days'), ('recent', now() - interval '39 days')`,
		`UPDATE messages SET created_at = now() - interval '400 days'`,
	} {
		if _, err := h.DB.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	h.Start() // the purger works at start
	h.WaitCount(`SELECT count(*) FROM updates WHERE payload ? 'old'`, 1)
	h.WaitCount(`SELECT count(*) FROM events WHERE type = 'old'`, 0)
	h.WaitCount(`SELECT count(*) FROM llm_calls WHERE model = 'old'`, 0)
	for q, want := range map[string]int{
		`SELECT count(*) FROM updates WHERE payload->>'old' = 'awaiting approval'`: 1,
		`SELECT count(*) FROM updates WHERE payload ? 'recent'`:                    1,
		`SELECT count(*) FROM events WHERE type = 'recent'`:                        1,
		`SELECT count(*) FROM llm_calls WHERE model = 'recent'`:                    1,
		`SELECT count(*) FROM messages`:                                            2,
	} {
		if n := h.Count(q); n != want {
			t.Errorf("%s: %d, want %d", q, n, want)
		}
	}
}
