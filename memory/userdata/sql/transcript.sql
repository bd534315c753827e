-- name: transcriptConversation
SELECT id::text AS id, telegram_user_id, chat_id, created_at, mode
			FROM conversations WHERE id = (SELECT id FROM conversations WHERE chat_id = $1 AND message_thread_id IS NOT DISTINCT FROM nullif($2::bigint, 0) AND reset_at IS NULL ORDER BY created_at DESC LIMIT 1)

-- name: transcriptCount
SELECT count(*) FROM messages WHERE conversation_id = $1

-- name: transcriptRows
SELECT id, conversation_id::text AS conversation_id, role, content, tool_calls,
	coalesce(tool_call_id, '') AS tool_call_id, coalesce(tool_name, '') AS tool_name,
	coalesce(telegram_message_id, 0) AS telegram_message_id, coalesce(update_id, 0) AS update_id,
	metadata, created_at, coalesce(written_at, created_at) AS written_at,
	CASE WHEN tool_calls IS NOT NULL AND metadata->>'reasoning_from' = 'reasoning_content'
		THEN coalesce(metadata->>'reasoning', '') ELSE '' END AS reasoning_back,
	CASE WHEN role = 'user' THEN metadata->'media' END AS media FROM messages WHERE conversation_id = $1 ORDER BY id

-- name: dialogue
SELECT * FROM (SELECT id, conversation_id::text AS conversation_id, role, content, tool_calls,
	coalesce(tool_call_id, '') AS tool_call_id, coalesce(tool_name, '') AS tool_name,
	coalesce(telegram_message_id, 0) AS telegram_message_id, coalesce(update_id, 0) AS update_id,
	metadata, created_at, coalesce(written_at, created_at) AS written_at,
	CASE WHEN tool_calls IS NOT NULL AND metadata->>'reasoning_from' = 'reasoning_content'
		THEN coalesce(metadata->>'reasoning', '') ELSE '' END AS reasoning_back,
	CASE WHEN role = 'user' THEN metadata->'media' END AS media FROM messages
		WHERE conversation_id = (SELECT id FROM conversations WHERE chat_id = $1 AND message_thread_id IS NOT DISTINCT FROM nullif($3::bigint, 0) AND reset_at IS NULL ORDER BY created_at DESC LIMIT 1)
		  AND (role = 'user' OR (role = 'assistant' AND tool_calls IS NULL))
		ORDER BY id DESC LIMIT $2) newest ORDER BY id

