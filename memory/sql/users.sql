-- name: upsertUser
INSERT INTO users (telegram_user_id, username, first_name, last_name, language_code)
VALUES (@telegram_user_id, NULLIF(@username, ''), NULLIF(@first_name, ''), NULLIF(@last_name, ''), NULLIF(@language_code, ''))
ON CONFLICT (telegram_user_id) DO UPDATE SET
	username = EXCLUDED.username, first_name = EXCLUDED.first_name, last_name = EXCLUDED.last_name,
	language_code = EXCLUDED.language_code, last_seen_at = now()

