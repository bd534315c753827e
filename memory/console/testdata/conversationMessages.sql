SELECT id, role, content, coalesce(tool_calls::text, ''), coalesce(tool_name, ''), coalesce(metadata::text, '{}'),
	created_at, forgotten
FROM (
	SELECT * FROM messages WHERE conversation_id = $1 ORDER BY id DESC LIMIT $2
) newest
ORDER BY id
