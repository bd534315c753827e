INSERT INTO events (type, telegram_user_id, chat_id, conversation_id, update_id, payload)
SELECT 'message_received', $3::bigint, $1::bigint, r.conversation_id, NULLIF($2::bigint, 0), jsonb_build_object('kind', $4::text)
FROM (SELECT id, conversation_id FROM (
	SELECT id, conversation_id FROM messages WHERE $2::bigint <> 0 AND update_id = $2::bigint AND role = 'user'
	UNION ALL
	(SELECT id, conversation_id FROM messages WHERE $2::bigint = 0 AND conversation_id =
		(SELECT id FROM conversations WHERE chat_id = $1 AND message_thread_id IS NOT DISTINCT FROM nullif($5::bigint, 0) AND reset_at IS NULL ORDER BY created_at DESC LIMIT 1)
	ORDER BY id DESC LIMIT 1)) turn_user_row) r
ON CONFLICT (type, update_id)
WHERE type IN ('message_received', 'reply_sent', 'access_denied', 'rate_limited') DO NOTHING
