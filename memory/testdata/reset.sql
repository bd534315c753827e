WITH old AS (
	SELECT mode, model FROM conversations WHERE chat_id = $1 AND message_thread_id IS NOT DISTINCT FROM nullif($5::bigint, 0) AND reset_at IS NULL ORDER BY created_at DESC LIMIT 1
), gone AS (
	UPDATE conversations SET reset_at = now() WHERE chat_id = $1 AND message_thread_id IS NOT DISTINCT FROM nullif($5::bigint, 0) AND reset_at IS NULL RETURNING id
), fresh AS (
	INSERT INTO conversations (telegram_user_id, chat_id, model, message_thread_id)
	VALUES ($2, $1, (SELECT model FROM old), nullif($5::bigint, 0)) RETURNING id
), logged AS (
	INSERT INTO events (type, telegram_user_id, chat_id, conversation_id, payload)
	SELECT 'conversation_reset', $2, $1, fresh.id, jsonb_build_object(
		'deleted_conversations', (SELECT count(*) FROM gone),
		'deleted_messages', (SELECT count(*) FROM messages WHERE conversation_id IN (SELECT id FROM gone)))
	FROM fresh
), recorded AS (
	INSERT INTO mode_switches (conversation_id, chat_id, from_mode, to_mode, reason)
	SELECT fresh.id, $1, old.mode, $3, $4 FROM fresh, old WHERE old.mode <> $3
)
SELECT id::text FROM fresh
