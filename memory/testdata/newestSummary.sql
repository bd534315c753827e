SELECT content, to_message_id FROM conversation_summaries
	WHERE conversation_id = $1 ORDER BY to_message_id DESC LIMIT 1
