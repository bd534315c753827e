SELECT
	(SELECT count(*) FROM users),
	(SELECT count(DISTINCT telegram_user_id) FROM events WHERE type = 'message_received' AND occurred_at >= $1),
	(SELECT count(*) FROM events WHERE type = 'message_received' AND occurred_at >= $1),
	(SELECT count(*) FROM messages),
	(SELECT coalesce(sum(total_tokens), 0) FROM llm_calls WHERE created_at >= $1),
	(SELECT count(*) FROM llm_calls WHERE created_at >= $1 AND status = 'ok'),
	(SELECT count(*) FROM events WHERE type = 'llm_error' AND occurred_at >= $1),
	(SELECT count(*) FROM events WHERE type = 'tool_called' AND occurred_at >= $1),
	(SELECT count(*) FROM events WHERE type IN ('access_denied', 'rate_limited') AND occurred_at >= $1),
	(SELECT count(*) FROM updates WHERE state <> 'done'),
	(SELECT count(*) FROM updates WHERE error IS NOT NULL)
