SELECT count(*), coalesce(min(occurred_at), 'epoch') FROM events
WHERE telegram_user_id = $1 AND type = $2 AND occurred_at >= $3
