SELECT id::text AS id, telegram_user_id, chat_id, created_at, mode
			FROM conversations WHERE id = (SELECT id FROM conversations WHERE chat_id = $1 AND message_thread_id IS NOT DISTINCT FROM nullif($2::bigint, 0) AND reset_at IS NULL ORDER BY created_at DESC LIMIT 1)
