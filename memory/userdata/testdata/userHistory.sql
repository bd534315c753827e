SELECT message_id, written_at, chat_id, role, content, coalesce(tool_name, '')
		FROM conversation_log WHERE telegram_user_id = $1 ORDER BY message_id DESC LIMIT $2
