-- name: recentUsage
-- recentUsage leaves out the update being decided: a retried update must
-- not count against itself.
SELECT
	(SELECT coalesce(sum(prompt_tokens + completion_tokens), 0) FROM llm_calls
	 WHERE telegram_user_id = @telegram_user_id AND created_at >= @day_start),
	(SELECT count(*) FROM events
	 WHERE telegram_user_id = @telegram_user_id AND type = 'message_received' AND occurred_at >= @window_start AND update_id IS DISTINCT FROM @update_id),
	(SELECT count(*) FROM events
	 WHERE telegram_user_id = @telegram_user_id AND type = 'rate_limited' AND occurred_at >= @window_start AND update_id IS DISTINCT FROM @update_id
	   AND payload->>'limit' = 'rate' AND payload->>'notified' = 'true')

-- name: userStats
SELECT
	u.telegram_user_id IS NOT NULL,
	coalesce(u.username, ''), coalesce(u.first_name, ''), coalesce(u.last_name, ''), coalesce(u.language_code, ''),
	coalesce(u.created_at, 'epoch'), coalesce(u.last_seen_at, 'epoch'),
	(SELECT count(*) FROM conversations WHERE telegram_user_id = $1 AND reset_at IS NULL),
	(SELECT count(*) FROM messages WHERE conversation_id IN (SELECT id FROM conversations WHERE telegram_user_id = $1 AND reset_at IS NULL)),
	(SELECT count(*) FROM events WHERE telegram_user_id = $1 AND type = 'message_received' AND occurred_at >= $2
	   AND payload->>'kind' IS DISTINCT FROM 'command'),
	(SELECT count(*) FROM events WHERE telegram_user_id = $1 AND type = 'message_received' AND occurred_at >= $3
	   AND payload->>'kind' IS DISTINCT FROM 'command'),
	(SELECT coalesce(sum(total_tokens), 0) FROM llm_calls WHERE telegram_user_id = $1 AND created_at >= $2),
	(SELECT coalesce(sum(total_tokens), 0) FROM llm_calls WHERE telegram_user_id = $1 AND created_at >= $3),
	(SELECT coalesce(sum(total_tokens), 0) FROM llm_calls WHERE telegram_user_id = $1),
	(SELECT count(*) FROM llm_calls WHERE telegram_user_id = $1),
	(SELECT count(*) FROM access_refusals WHERE telegram_user_id = $1)
FROM (SELECT $1::bigint AS id) wanted
LEFT JOIN users u ON u.telegram_user_id = wanted.id

-- name: stats
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

-- name: userByUsername
SELECT telegram_user_id FROM users WHERE lower(username) = lower($1)
		ORDER BY last_seen_at DESC NULLS LAST LIMIT 1

