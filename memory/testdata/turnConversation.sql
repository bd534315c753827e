SELECT r.conversation_id::text, r.id, c.mode, coalesce(c.model, ''), coalesce((SELECT voice_replies FROM chat_settings WHERE chat_id = $1), false),
		coalesce((SELECT content FROM conversation_summaries WHERE conversation_id = r.conversation_id
		ORDER BY to_message_id DESC LIMIT 1), '') FROM (SELECT id, conversation_id FROM (
	SELECT id, conversation_id FROM messages WHERE $2::bigint <> 0 AND update_id = $2::bigint AND role = 'user'
	UNION ALL
	(SELECT id, conversation_id FROM messages WHERE $2::bigint = 0 AND conversation_id =
		(SELECT id FROM conversations WHERE chat_id = $1 AND message_thread_id IS NOT DISTINCT FROM nullif($3::bigint, 0) AND reset_at IS NULL ORDER BY created_at DESC LIMIT 1)
	ORDER BY id DESC LIMIT 1)) turn_user_row) r
		JOIN conversations c ON c.id = r.conversation_id
