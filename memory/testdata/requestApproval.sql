WITH asked AS (
	INSERT INTO pending_approvals
		(request_id, subject, details, arguments, conversation_id, assistant_message_id, telegram_user_id, chat_id, update_id)
	SELECT $1, $2, $3, $8, $4::uuid,
		(SELECT id FROM messages WHERE conversation_id = $4::uuid AND role = 'assistant'
		   AND tool_calls @> jsonb_build_array(jsonb_build_object('id', $1::text)) ORDER BY id DESC LIMIT 1),
		$5, $6, NULLIF($7::bigint, 0)
	RETURNING *
), logged AS (
	INSERT INTO events (type, telegram_user_id, chat_id, conversation_id, update_id, payload)
	SELECT 'approval_requested', telegram_user_id, chat_id, conversation_id, update_id,
		jsonb_build_object('approval_id', id, 'tool', subject, 'request_id', request_id, 'arguments', details)
	FROM asked
)
SELECT id, request_id, subject, coalesce(arguments, details::text) AS details,
	coalesce(conversation_id::text, '') AS conversation_id, coalesce(assistant_message_id, 0) AS assistant_message_id,
	telegram_user_id, chat_id, coalesce(update_id, 0) AS update_id, coalesce(telegram_message_id, 0) AS telegram_message_id,
	status, created_at, decision_at, coalesce(decided_by, 0) AS decided_by,
	coalesce(decision_update_id, 0) AS decision_update_id, coalesce(decision_reason, '') AS decision_reason FROM asked
