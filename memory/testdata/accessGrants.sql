SELECT g.kind, g.telegram_id, g.status,
	coalesce(u.first_name, r.first_name, ''), coalesce(u.username, r.username, ''), coalesce(r.chat_title, ''), g.updated_at
FROM access_grants g
LEFT JOIN users u ON g.kind = 'user' AND u.telegram_user_id = g.telegram_id
LEFT JOIN LATERAL (
	SELECT first_name, username, chat_title FROM access_requests
	WHERE kind = g.kind AND telegram_id = g.telegram_id ORDER BY id DESC LIMIT 1
) r ON true
ORDER BY CASE g.status WHEN 'owner' THEN 0 WHEN 'allowed' THEN 1 ELSE 2 END, g.updated_at DESC
LIMIT $1
