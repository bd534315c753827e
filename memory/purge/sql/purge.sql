-- name: purge
-- purge deletes up to $1 messages of the oldest conversation /new left
-- behind and, when those were its last, the conversation itself (what
-- refers to it goes with it, or loses the reference). SKIP LOCKED lets the
-- purgers of several processes work side by side.
WITH target AS (
	SELECT id FROM conversations WHERE reset_at IS NOT NULL ORDER BY reset_at LIMIT 1 FOR UPDATE SKIP LOCKED
), doomed AS (
	SELECT m.id FROM messages m JOIN target t ON m.conversation_id = t.id LIMIT $1
), gone_messages AS (
	DELETE FROM messages WHERE id IN (SELECT id FROM doomed) RETURNING 1
), gone_conversation AS (
	DELETE FROM conversations WHERE id IN (SELECT id FROM target) AND (SELECT count(*) FROM doomed) < $1 RETURNING 1
)
SELECT (SELECT count(*) FROM gone_messages) + (SELECT count(*) FROM gone_conversation)

-- name: expired
-- expired deletes up to $2 rows received before $1 from each of the
-- operational tables: finished updates (not one a pending approval still
-- answers), events and llm_calls. Messages, facts and reminders are the
-- users' and stay until they delete them.
WITH gone_updates AS (
	DELETE FROM updates WHERE update_id IN (
		SELECT update_id FROM updates u WHERE state = 'done' AND received_at < $1
		  AND NOT EXISTS (SELECT 1 FROM pending_approvals a WHERE a.update_id = u.update_id AND a.status = 'pending')
		LIMIT $2 FOR UPDATE SKIP LOCKED)
	RETURNING 1
), gone_events AS (
	DELETE FROM events WHERE id IN (SELECT id FROM events WHERE occurred_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED) RETURNING 1
), gone_calls AS (
	DELETE FROM llm_calls WHERE id IN (SELECT id FROM llm_calls WHERE created_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED) RETURNING 1
)
SELECT (SELECT count(*) FROM gone_updates) + (SELECT count(*) FROM gone_events) + (SELECT count(*) FROM gone_calls)

