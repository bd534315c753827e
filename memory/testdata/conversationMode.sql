WITH conv_existing AS (
	SELECT id FROM conversations WHERE chat_id = $1 AND message_thread_id IS NOT DISTINCT FROM nullif($4::bigint, 0) AND reset_at IS NULL ORDER BY created_at DESC LIMIT 1
), conv_created AS (
	INSERT INTO conversations (telegram_user_id, chat_id, message_thread_id)
	SELECT $2, $1, nullif($4::bigint, 0) WHERE NOT EXISTS (SELECT 1 FROM conv_existing)
	RETURNING id
), conv AS (
	SELECT id FROM conv_existing UNION ALL SELECT id FROM conv_created
)
		SELECT coalesce((SELECT mode FROM conversations WHERE id = (SELECT id FROM conv)), $3)
