SELECT a.id AS answer_id, a.conversation_id::text AS conversation_id, c.chat_id,
		coalesce((u.metadata->>'author_id')::bigint, c.telegram_user_id) AS user_id, coalesce(u.id, 0) AS user_message_id,
		left(coalesce(membot_plain_text(u.content), ''), $4) AS user_text, left(a.content, $4) AS answer_text, a.created_at AS at
	FROM messages a JOIN conversations c ON c.id = a.conversation_id
	LEFT JOIN LATERAL (SELECT id, content, metadata FROM messages
		WHERE conversation_id = a.conversation_id AND role = 'user' AND id < a.id ORDER BY id DESC LIMIT 1) u ON true
	WHERE a.id > $1 AND a.role = 'assistant' AND a.tool_calls IS NULL AND a.created_at < clock_timestamp() - $3::interval
	ORDER BY a.id LIMIT $2
