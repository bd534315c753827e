SELECT
	(SELECT coalesce(sum(prompt_tokens + completion_tokens), 0) FROM llm_calls
	 WHERE telegram_user_id = $1 AND created_at >= $2),
	(SELECT count(*) FROM events
	 WHERE telegram_user_id = $1 AND type = 'message_received' AND occurred_at >= $3 AND update_id IS DISTINCT FROM $4),
	(SELECT count(*) FROM events
	 WHERE telegram_user_id = $1 AND type = 'rate_limited' AND occurred_at >= $3 AND update_id IS DISTINCT FROM $4
	   AND payload->>'limit' = 'rate' AND payload->>'notified' = 'true')
