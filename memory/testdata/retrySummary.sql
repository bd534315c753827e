SELECT coalesce((SELECT content FROM conversation_summaries WHERE conversation_id = (SELECT id FROM conversations WHERE chat_id = $1 AND message_thread_id IS NOT DISTINCT FROM nullif($2::bigint, 0) AND reset_at IS NULL ORDER BY created_at DESC LIMIT 1)
		ORDER BY to_message_id DESC LIMIT 1), '')
