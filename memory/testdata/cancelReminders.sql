UPDATE reminders r SET status = 'cancelled' FROM (
			SELECT id, row_number() OVER (ORDER BY due_at, id) AS n
			FROM reminders WHERE chat_id = $1 AND status = 'pending' AND schedule IS NULL) numbered
		WHERE r.id = numbered.id AND (cardinality($2::int[]) = 0 OR numbered.n = ANY($2::int[]))
		  AND ($3::bigint = 0 OR r.telegram_user_id = $3)
		RETURNING r.id, r.telegram_user_id, r.chat_id, r.text, r.due_at,
	coalesce(r.source_message_id, 0) AS source_message_id, r.attempts,
	coalesce((SELECT language_code FROM users u WHERE u.telegram_user_id = r.telegram_user_id), '') AS language_code,
	coalesce(r.message_thread_id, 0) AS message_thread_id,
	r.kind, coalesce(r.schedule, '') AS schedule, coalesce(r.time_zone, '') AS time_zone, r.status, r.runs
