SELECT s.id, s.chat_id, s.content, s.created_at
FROM conversation_summaries s
JOIN conversations c ON c.id = s.conversation_id
WHERE c.chat_id = $1 AND c.telegram_user_id = $1 AND c.reset_at IS NULL
ORDER BY s.created_at DESC
LIMIT 50
