INSERT INTO conversation_summaries (conversation_id, chat_id, from_message_id, to_message_id, content, model)
		SELECT id, $2, $3, $4, $5, $6 FROM conversations WHERE id = $1::uuid
