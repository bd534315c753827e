SELECT a.id AS answer_id, a.conversation_id::text AS conversation_id, c.chat_id,
		coalesce((u.metadata->>'author_id')::bigint, c.telegram_user_id) AS user_id, coalesce(u.id, 0) AS user_message_id,
		left(coalesce(membot_plain_text(u.content), ''), $4) AS user_text, left(a.content, $4) AS answer_text, coalesce(u.written_at, a.created_at) AS at,
		coalesce(u.metadata->'media'->0->>'kind', '') AS user_media, coalesce((u.metadata->>'forwarded')::boolean, false) AS user_forwarded,
		coalesce(u.metadata ? 'scheduled', false) AS user_scheduled, coalesce(u.metadata->>'via_bot', '') AS user_via_bot, ARRAY(SELECT DISTINCT t.tool_name FROM messages t WHERE t.conversation_id = a.conversation_id AND t.role = 'tool'
			AND t.id > coalesce(u.id, 0) AND t.id < a.id AND t.tool_name IS NOT NULL ORDER BY t.tool_name) AS tools
	FROM messages a JOIN conversations c ON c.id = a.conversation_id
	LEFT JOIN LATERAL (SELECT id, content, metadata, coalesce(written_at, created_at) AS written_at FROM messages
		WHERE conversation_id = a.conversation_id AND role = 'user' AND id < a.id ORDER BY id DESC LIMIT 1) u ON true
	WHERE a.id > $1 AND a.role = 'assistant' AND a.tool_calls IS NULL AND NOT a.forgotten AND a.created_at < clock_timestamp() - $3::interval
	ORDER BY a.id LIMIT $2
