SELECT u.telegram_user_id, coalesce(u.username, ''), coalesce(u.first_name, ''), coalesce(u.last_name, ''),
	coalesce(u.language_code, ''), u.last_seen_at,
	(SELECT count(*) FROM memories m WHERE m.telegram_user_id = u.telegram_user_id AND m.superseded_by IS NULL)
FROM users u
ORDER BY u.last_seen_at DESC
LIMIT 500
