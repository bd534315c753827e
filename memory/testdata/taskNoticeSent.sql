SELECT EXISTS (SELECT 1 FROM events WHERE telegram_user_id = $1 AND type = 'rate_limited' AND occurred_at >= $3
	AND chat_id = $2 AND payload->>'limit' = $4 AND payload->>'notified' = 'true' AND payload ? 'task_id')
