SELECT id, role, left(content, 2001), length(content), left(coalesce(tool_calls::text, ''), 2001), coalesce(tool_name, ''),
	left(coalesce(metadata::text, '{}'), 2001), created_at, forgotten
FROM (
	SELECT * FROM messages WHERE conversation_id = $1 ORDER BY id DESC LIMIT $2
) newest
ORDER BY id
