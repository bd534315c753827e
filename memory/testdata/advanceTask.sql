UPDATE reminders SET runs = runs + 1, last_run_at = now(), late = $3,
	due_at = coalesce($2, due_at), status = CASE WHEN $2::timestamptz IS NULL THEN 'sent' ELSE 'pending' END
WHERE id = $1
