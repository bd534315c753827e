SELECT * FROM (SELECT id, conversation_id::text AS conversation_id, role, content, tool_calls,
	coalesce(tool_call_id, '') AS tool_call_id, coalesce(tool_name, '') AS tool_name,
	coalesce(telegram_message_id, 0) AS telegram_message_id, coalesce(update_id, 0) AS update_id,
	metadata, created_at, coalesce(written_at, created_at) AS written_at,
	CASE WHEN tool_calls IS NOT NULL AND metadata->>'reasoning_from' = 'reasoning_content'
		THEN coalesce(metadata->>'reasoning', '') ELSE '' END AS reasoning_back,
	CASE WHEN role = 'user' THEN metadata->'media' END AS media,
	CASE WHEN role = 'user' THEN coalesce(metadata->>'refused', '') ELSE '' END AS refused,
	CASE WHEN role = 'user' THEN coalesce((metadata->>'author_id')::bigint, 0) ELSE 0 END AS author_id,
	CASE WHEN role = 'user' THEN coalesce((metadata->>'forwarded')::boolean, false) ELSE false END AS forwarded,
	CASE WHEN role = 'user' THEN coalesce(metadata->>'via_bot', '') ELSE '' END AS via_bot FROM messages m
	WHERE m.conversation_id >= (SELECT conversation_id FROM (SELECT id, conversation_id FROM (
	SELECT id, conversation_id FROM messages WHERE $2::bigint <> 0 AND update_id = $2::bigint AND role = 'user'
	UNION ALL
	(SELECT id, conversation_id FROM messages WHERE $2::bigint = 0 AND conversation_id =
		(SELECT id FROM conversations WHERE chat_id = $1 AND message_thread_id IS NOT DISTINCT FROM nullif($4::bigint, 0) AND reset_at IS NULL ORDER BY created_at DESC LIMIT 1)
	ORDER BY id DESC LIMIT 1)) turn_user_row) r) AND m.conversation_id <= (SELECT conversation_id FROM (SELECT id, conversation_id FROM (
	SELECT id, conversation_id FROM messages WHERE $2::bigint <> 0 AND update_id = $2::bigint AND role = 'user'
	UNION ALL
	(SELECT id, conversation_id FROM messages WHERE $2::bigint = 0 AND conversation_id =
		(SELECT id FROM conversations WHERE chat_id = $1 AND message_thread_id IS NOT DISTINCT FROM nullif($4::bigint, 0) AND reset_at IS NULL ORDER BY created_at DESC LIMIT 1)
	ORDER BY id DESC LIMIT 1)) turn_user_row) r) AND NOT m.forgotten
	ORDER BY m.conversation_id DESC, m.id DESC LIMIT $3) newest ORDER BY id
