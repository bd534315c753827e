-- The statements that decide approvals log approval_decided for each row of
-- their CTE decided. In a topic, a chat's approvals are those its
-- conversations asked for (the topic parameter is 0 outside topics).

-- name: requestApproval
-- requestApproval stores the request for call @request_id of the newest assistant
-- row of conversation @conversation_id that asks for it (stored just before, in the same
-- batch), and logs approval_requested. @arguments is the arguments' exact text,
-- @details their jsonb copy.
WITH asked AS (
	INSERT INTO pending_approvals
		(request_id, subject, details, arguments, conversation_id, assistant_message_id, telegram_user_id, chat_id, update_id)
	SELECT @request_id, @subject, @details, @arguments, @conversation_id::uuid,
		(SELECT id FROM messages WHERE conversation_id = @conversation_id::uuid AND role = 'assistant'
		   AND tool_calls @> jsonb_build_array(jsonb_build_object('id', @request_id::text)) ORDER BY id DESC LIMIT 1),
		@telegram_user_id, @chat_id, NULLIF(@update_id::bigint, 0)
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

-- name: turnApprovals
-- turnApprovals is chat $1's pending approvals and those asked by
-- update $2 (a turn's, or a retried one's), oldest first.
SELECT id, request_id, subject, coalesce(arguments, details::text) AS details,
	coalesce(conversation_id::text, '') AS conversation_id, coalesce(assistant_message_id, 0) AS assistant_message_id,
	telegram_user_id, chat_id, coalesce(update_id, 0) AS update_id, coalesce(telegram_message_id, 0) AS telegram_message_id,
	status, created_at, decision_at, coalesce(decided_by, 0) AS decided_by,
	coalesce(decision_update_id, 0) AS decision_update_id, coalesce(decision_reason, '') AS decision_reason FROM pending_approvals WHERE chat_id = $1 AND (status = 'pending' OR update_id = NULLIF($2::bigint, 0)) ORDER BY id

-- name: resumeApprovals
-- resumeApprovals is the approvals of assistant row $1 and chat $2's
-- pending ones, oldest first.
SELECT id, request_id, subject, coalesce(arguments, details::text) AS details,
	coalesce(conversation_id::text, '') AS conversation_id, coalesce(assistant_message_id, 0) AS assistant_message_id,
	telegram_user_id, chat_id, coalesce(update_id, 0) AS update_id, coalesce(telegram_message_id, 0) AS telegram_message_id,
	status, created_at, decision_at, coalesce(decided_by, 0) AS decided_by,
	coalesce(decision_update_id, 0) AS decision_update_id, coalesce(decision_reason, '') AS decision_reason FROM pending_approvals WHERE assistant_message_id = $1 OR (chat_id = $2 AND status = 'pending') ORDER BY id

-- name: approvalByID
SELECT id, request_id, subject, coalesce(arguments, details::text) AS details,
	coalesce(conversation_id::text, '') AS conversation_id, coalesce(assistant_message_id, 0) AS assistant_message_id,
	telegram_user_id, chat_id, coalesce(update_id, 0) AS update_id, coalesce(telegram_message_id, 0) AS telegram_message_id,
	status, created_at, decision_at, coalesce(decided_by, 0) AS decided_by,
	coalesce(decision_update_id, 0) AS decision_update_id, coalesce(decision_reason, '') AS decision_reason FROM pending_approvals WHERE id = $1

-- name: decideApproval
WITH decided AS (
		UPDATE pending_approvals SET status = @status, decision_at = now(),
			decided_by = NULLIF(@decided_by::bigint, 0), decision_update_id = NULLIF(@decision_update_id::bigint, 0), decision_reason = NULLIF(@decision_reason, '')
		WHERE id = @id AND status = 'pending' RETURNING *
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

-- name: setApprovalMessage
UPDATE pending_approvals SET telegram_message_id = $2 WHERE id = $1

-- name: chatApprovals
SELECT id, request_id, subject, coalesce(arguments, details::text) AS details,
	coalesce(conversation_id::text, '') AS conversation_id, coalesce(assistant_message_id, 0) AS assistant_message_id,
	telegram_user_id, chat_id, coalesce(update_id, 0) AS update_id, coalesce(telegram_message_id, 0) AS telegram_message_id,
	status, created_at, decision_at, coalesce(decided_by, 0) AS decided_by,
	coalesce(decision_update_id, 0) AS decision_update_id, coalesce(decision_reason, '') AS decision_reason FROM pending_approvals
		WHERE chat_id = $1 AND status = 'pending' AND ($2::bigint = 0 OR conversation_id IN (
	SELECT id FROM conversations WHERE chat_id = $1 AND message_thread_id = $2)) ORDER BY id

-- name: cancelApprovals
WITH decided AS (
		UPDATE pending_approvals SET status = 'cancelled', decision_at = now(), decision_reason = $2
		WHERE chat_id = $1 AND status = 'pending' AND ($3::bigint = 0 OR conversation_id IN (
	SELECT id FROM conversations WHERE chat_id = $1 AND message_thread_id = $3)) RETURNING *
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
	coalesce(decision_update_id, 0) AS decision_update_id, coalesce(decision_reason, '') AS decision_reason FROM decided ORDER BY id


-- name: setApprovalPin
-- setApprovalPin stores pin $3 with the pending request for call $1 of
-- conversation $2 (asked just before, in the same batch).
UPDATE pending_approvals SET pin = $3 WHERE request_id = $1 AND conversation_id = $2::uuid AND status = 'pending'

-- name: approvalPin
SELECT coalesce(pin::text, '') FROM pending_approvals WHERE id = $1
