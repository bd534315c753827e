SELECT id, kind, telegram_id, chat_id, telegram_user_id, first_name, last_name, username, language_code,
	chat_title, created_at, expires_at
FROM access_requests WHERE status = 'pending' AND expires_at > now()
ORDER BY id LIMIT $1
