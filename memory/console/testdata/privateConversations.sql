SELECT id::text FROM conversations
WHERE chat_id = $1 AND telegram_user_id = $1 AND reset_at IS NULL
ORDER BY created_at DESC
LIMIT 20
