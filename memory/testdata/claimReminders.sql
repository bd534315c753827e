UPDATE reminders r
SET status = 'sending', owner_id = $1, claimed_at = now(), attempts = r.attempts + 1
FROM (SELECT id FROM reminders
      WHERE due_at <= now() AND kind = 'reminder'
        AND (status = 'pending' OR (status = 'sending' AND NOT membot_owner_alive(owner_id)))
      ORDER BY due_at, id LIMIT $2 FOR UPDATE SKIP LOCKED) due
WHERE r.id = due.id
RETURNING r.id, r.telegram_user_id, r.chat_id, r.text, r.due_at,
	coalesce(r.source_message_id, 0) AS source_message_id, r.attempts,
	coalesce((SELECT language_code FROM users u WHERE u.telegram_user_id = r.telegram_user_id), '') AS language_code,
	coalesce(r.message_thread_id, 0) AS message_thread_id,
	r.kind, coalesce(r.schedule, '') AS schedule, coalesce(r.time_zone, '') AS time_zone, r.status, r.runs
