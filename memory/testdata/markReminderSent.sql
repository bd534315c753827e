UPDATE reminders SET status = CASE WHEN $4::timestamptz IS NULL THEN 'sent' ELSE 'pending' END,
		due_at = coalesce($4, due_at), owner_id = NULL, runs = runs + 1, last_run_at = now(), sent_at = now(), late = $3,
		telegram_message_id = NULLIF($2::bigint, 0), error = NULL WHERE id = $1
