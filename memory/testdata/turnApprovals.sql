SELECT id, request_id, subject, coalesce(arguments, details::text) AS details,
	coalesce(conversation_id::text, '') AS conversation_id, coalesce(assistant_message_id, 0) AS assistant_message_id,
	telegram_user_id, chat_id, coalesce(update_id, 0) AS update_id, coalesce(telegram_message_id, 0) AS telegram_message_id,
	status, created_at, decision_at, coalesce(decided_by, 0) AS decided_by,
	coalesce(decision_update_id, 0) AS decision_update_id, coalesce(decision_reason, '') AS decision_reason FROM pending_approvals WHERE chat_id = $1 AND (status = 'pending' OR update_id = NULLIF($2::bigint, 0)) ORDER BY id
