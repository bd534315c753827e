WITH decided AS (
		UPDATE pending_approvals SET status = $2, decision_at = now(),
			decided_by = NULLIF($3::bigint, 0), decision_update_id = NULLIF($4::bigint, 0), decision_reason = NULLIF($5, '')
		WHERE id = $1 AND status = 'pending' RETURNING *
	), logged AS (
	INSERT INTO events (type, telegram_user_id, chat_id, conversation_id, update_id, payload)
	SELECT 'approval_decided', coalesce(decided_by, telegram_user_id), chat_id, conversation_id, decision_update_id,
		jsonb_build_object('approval_id', id, 'tool', subject, 'status', status, 'decided_by', decided_by,
			'reason', decision_reason, 'waited_ms', (extract(epoch FROM decision_at - created_at) * 1000)::bigint)
	FROM decided
) SELECT id, request_id, subject, coalesce(arguments, details::text) AS details,
	coalesce(conversation_id::text, '') AS conversation_id, coalesce(assistant_message_id, 0) AS assistant_message_id,
	telegram_user_id, chat_id, coalesce(update_id, 0) AS update_id, coalesce(telegram_message_id, 0) AS telegram_message_id,
	status, created_at, decision_at, coalesce(decided_by, 0) AS decided_by,
	coalesce(decision_update_id, 0) AS decision_update_id, coalesce(decision_reason, '') AS decision_reason FROM decided
