SELECT id, conversation_id::text, left(membot_plain_text(content), $4) AS text FROM messages
		WHERE id > $1 AND role IN ('user', 'assistant') AND created_at < clock_timestamp() - $3::interval ORDER BY id LIMIT $2
