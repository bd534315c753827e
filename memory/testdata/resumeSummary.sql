SELECT coalesce((SELECT content FROM conversation_summaries WHERE conversation_id = $1::uuid
		ORDER BY to_message_id DESC LIMIT 1), '')
