DELETE FROM messages WHERE conversation_id = $1 AND id >= $2
		RETURNING role, role = 'user' OR (role = 'assistant' AND tool_calls IS NULL) AS shown
