SELECT * FROM (
	SELECT m.id, m.role, left(membot_plain_text(m.content), $4) AS text, coalesce(m.written_at, m.created_at) AS written_at,
		coalesce(m.metadata->'media'->0->>'kind', '') AS media, coalesce((m.metadata->>'forwarded')::boolean, false) AS forwarded,
		m.metadata ? 'scheduled' AS scheduled, coalesce(m.metadata->>'via_bot', '') AS via_bot,
		coalesce((m.metadata->>'author_id')::bigint, 0) AS author_id FROM messages m
	WHERE m.conversation_id = $1 AND m.role IN ('user', 'assistant') AND m.content <> '' AND NOT m.forgotten
	  AND m.id < (SELECT coalesce(min(id), 0) FROM (SELECT id FROM messages WHERE conversation_id = $1 AND NOT forgotten ORDER BY id DESC LIMIT $2) w)
	  AND m.id > coalesce((SELECT to_message_id FROM conversation_summaries WHERE conversation_id = $1 ORDER BY to_message_id DESC LIMIT 1), 0)
	ORDER BY m.id DESC LIMIT $3) newest
ORDER BY id
