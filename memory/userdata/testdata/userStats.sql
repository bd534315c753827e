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
