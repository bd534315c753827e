SELECT h.id AS hit, n.side, n.id, n.role, n.written_at, n.author_id, n.forwarded, n.via_bot, n.media,
	CASE WHEN length(n.text) <= 400 THEN n.text ELSE left(n.text, 300) || ' …' END AS text
FROM unnest($2::bigint[]) h (id), LATERAL (
	(SELECT -1 AS side, m.id, m.role, coalesce(m.written_at, m.created_at) AS written_at,
	CASE WHEN m.role = 'user' THEN coalesce((m.metadata->>'author_id')::bigint, 0) ELSE 0 END AS author_id,
	m.role = 'user' AND coalesce((m.metadata->>'forwarded')::boolean, false) AS forwarded,
	CASE WHEN m.role = 'user' THEN coalesce(m.metadata->>'via_bot', '') ELSE '' END AS via_bot,
	CASE WHEN m.role = 'user' THEN m.metadata->'media' END AS media, membot_plain_text(m.content) AS text FROM messages m
	WHERE m.conversation_id >= $1 AND m.conversation_id <= $1 AND m.id < h.id AND m.role IN ('user', 'assistant') AND m.content <> '' AND NOT m.forgotten
	ORDER BY m.conversation_id DESC, m.id DESC LIMIT 2)
	UNION ALL
	(SELECT 1, m.id, m.role, coalesce(m.written_at, m.created_at),
	CASE WHEN m.role = 'user' THEN coalesce((m.metadata->>'author_id')::bigint, 0) ELSE 0 END,
	m.role = 'user' AND coalesce((m.metadata->>'forwarded')::boolean, false),
	CASE WHEN m.role = 'user' THEN coalesce(m.metadata->>'via_bot', '') ELSE '' END,
	CASE WHEN m.role = 'user' THEN m.metadata->'media' END, membot_plain_text(m.content) FROM messages m
	WHERE m.conversation_id >= $1 AND m.conversation_id <= $1 AND m.id > h.id AND m.id < $3 AND m.role IN ('user', 'assistant') AND m.content <> '' AND NOT m.forgotten
	ORDER BY m.conversation_id, m.id LIMIT 2)) n
ORDER BY h.id, n.side, abs(n.id - h.id)
