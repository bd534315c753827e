package memory

import (
	"context"
	"fmt"
)

// PurgeBatch is how many messages PurgeReset deletes at a time: a short
// transaction even when every row sits on a page of its own.
const PurgeBatch = 5000

// purgeSQL deletes up to $1 messages of the oldest conversation /new left
// behind and, when those were its last, the conversation itself (what
// refers to it goes with it, or loses the reference). SKIP LOCKED lets the
// purgers of several processes work side by side.
const purgeSQL = `WITH target AS (
	SELECT id FROM conversations WHERE reset_at IS NOT NULL ORDER BY reset_at LIMIT 1 FOR UPDATE SKIP LOCKED
), doomed AS (
	SELECT m.id FROM messages m JOIN target t ON m.conversation_id = t.id LIMIT $1
), gone_messages AS (
	DELETE FROM messages WHERE id IN (SELECT id FROM doomed) RETURNING 1
), gone_conversation AS (
	DELETE FROM conversations WHERE id IN (SELECT id FROM target) AND (SELECT count(*) FROM doomed) < $1 RETURNING 1
)
SELECT (SELECT count(*) FROM gone_messages) + (SELECT count(*) FROM gone_conversation)`

// PurgeReset deletes one batch of what /new left behind (see Reset) and
// returns how many rows went: 0 when nothing is left to purge.
func (s *Store) PurgeReset(ctx context.Context) (int64, error) {
	var n int64
	if err := s.pool.QueryRow(ctx, purgeSQL, PurgeBatch).Scan(&n); err != nil {
		return 0, fmt.Errorf("purge reset conversations: %w", translate(err))
	}
	return n, nil
}
