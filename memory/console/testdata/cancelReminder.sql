UPDATE reminders SET status = 'cancelled'
WHERE id = $1 AND status IN ('pending', 'paused') AND ($2::bigint = 0 OR telegram_user_id = $2::bigint)
RETURNING chat_id
