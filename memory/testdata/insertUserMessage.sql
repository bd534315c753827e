WITH conv_existing AS (
	SELECT id FROM conversations WHERE chat_id = $1 AND message_thread_id IS NOT DISTINCT FROM nullif($7::bigint, 0) AND reset_at IS NULL ORDER BY created_at DESC LIMIT 1
), conv_created AS (
	INSERT INTO conversations (telegram_user_id, chat_id, message_thread_id)
	SELECT $2, $1, nullif($7::bigint, 0) WHERE NOT EXISTS (SELECT 1 FROM conv_existing)
	RETURNING id
), conv AS (
	SELECT id FROM conv_existing UNION ALL SELECT id FROM conv_created
)
INSERT INTO messages (conversation_id, role, content, telegram_message_id, update_id, metadata, search_vector, written_at)
SELECT id, 'user', $3, NULLIF($4::bigint, 0), NULLIF($5::bigint, 0),
	jsonb_build_object('author_id', $2::bigint) || coalesce($6::jsonb, '{}'::jsonb), membot_message_stems('user'::text, $3::text),
	$8::timestamptz FROM conv
ON CONFLICT (update_id) WHERE role = 'user' DO NOTHING
