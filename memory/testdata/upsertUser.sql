INSERT INTO users (telegram_user_id, username, first_name, last_name, language_code)
VALUES ($1, NULLIF($2, ''), NULLIF($3, ''), NULLIF($4, ''), NULLIF($5, ''))
ON CONFLICT (telegram_user_id) DO UPDATE SET
	username = EXCLUDED.username, first_name = EXCLUDED.first_name, last_name = EXCLUDED.last_name,
	language_code = EXCLUDED.language_code, last_seen_at = now()
