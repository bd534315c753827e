SELECT telegram_user_id, coalesce(username, ''), coalesce(first_name, ''), coalesce(last_name, ''),
	coalesce(language_code, ''), last_seen_at, 0::bigint
FROM users WHERE telegram_user_id = $1
