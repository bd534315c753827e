SELECT c.id::text, c.chat_id, coalesce(c.message_thread_id, 0), c.telegram_user_id, coalesce(u.username, ''),
	coalesce(u.first_name, ''), c.created_at,
	coalesce((SELECT m.created_at FROM messages m WHERE m.conversation_id = c.id ORDER BY m.id DESC LIMIT 1), c.created_at) AS last_at
FROM conversations c
LEFT JOIN users u ON u.telegram_user_id = c.telegram_user_id
WHERE c.reset_at IS NULL
ORDER BY last_at DESC
LIMIT 200
