SELECT telegram_user_id FROM users WHERE lower(username) = lower($1)
		ORDER BY last_seen_at DESC NULLS LAST LIMIT 1
