SELECT id, role, left(content, 2001), length(content), left(coalesce(tool_calls::text, ''), 2001), coalesce(tool_name, ''),
	left(coalesce(metadata::text, '{}'), 2001), created_at, forgotten,
	coalesce((SELECT jsonb_agg(jsonb_build_object('id', left(c.call->>'id', 200), 'name', left(c.call->>'name', 200),
		'arguments', left(c.call->>'arguments', 2001)) ORDER BY c.n)
		FROM jsonb_array_elements(CASE WHEN jsonb_typeof(tool_calls) = 'array' THEN tool_calls ELSE '[]' END) WITH ORDINALITY AS c(call, n)
		WHERE c.n <= 20), '[]'),
	coalesce(metadata->'media'->0->>'kind', ''), coalesce((metadata->>'forwarded')::boolean, false),
	coalesce(metadata ? 'scheduled', false), coalesce(metadata->>'via_bot', ''),
	(SELECT chat_id < 0 FROM conversations WHERE id = $1)
FROM (
	SELECT * FROM messages WHERE conversation_id = $1 ORDER BY id DESC LIMIT $2
) newest
ORDER BY id
