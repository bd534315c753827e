UPDATE reminders r SET status = $4, due_at = coalesce($5, r.due_at), owner_id = NULL
WHERE r.id = $2 AND r.chat_id = $1 AND r.schedule IS NOT NULL AND r.status IN ('pending', 'paused')
  AND ($4 <> 'pending' OR r.status = 'paused')
  AND ($3::bigint = 0 OR r.telegram_user_id = $3)
RETURNING r.id, r.telegram_user_id, r.chat_id, r.text, r.due_at,
	coalesce(r.source_message_id, 0) AS source_message_id, r.attempts,
	coalesce((SELECT language_code FROM users u WHERE u.telegram_user_id = r.telegram_user_id), '') AS language_code,
	coalesce(r.message_thread_id, 0) AS message_thread_id,
	r.kind, coalesce(r.schedule, '') AS schedule, coalesce(r.time_zone, '') AS time_zone, r.status, r.runs
