SELECT conversation_id::text, chat_id, from_message_id, to_message_id, content, model
		FROM conversation_summaries WHERE conversation_id = $1 ORDER BY to_message_id
