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
