SELECT r.id, r.telegram_user_id, r.chat_id, r.text, r.due_at,
	coalesce(r.source_message_id, 0) AS source_message_id, r.attempts,
	coalesce(u.language_code, '') AS language_code,
	coalesce(r.message_thread_id, 0) AS message_thread_id,
	r.kind, coalesce(r.schedule, '') AS schedule, coalesce(r.time_zone, '') AS time_zone, r.status, r.runs,
	coalesce(u.username, '') AS username, coalesce(u.first_name, '') AS first_name, coalesce(u.last_name, '') AS last_name
FROM reminders r LEFT JOIN users u ON u.telegram_user_id = r.telegram_user_id
WHERE r.kind = 'task' AND r.status = 'pending' AND r.due_at <= now()
ORDER BY r.due_at, r.id LIMIT $1 FOR UPDATE OF r SKIP LOCKED
