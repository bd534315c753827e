UPDATE reminders SET status = $2, owner_id = NULL, error = $3 WHERE id = $1
