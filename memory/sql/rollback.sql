-- name: lastUserRow
-- lastUserRow is the last user row of chat $1's current conversation in
-- topic $2.
SELECT id, conversation_id::text AS conversation_id, role, content, tool_calls,
	coalesce(tool_call_id, '') AS tool_call_id, coalesce(tool_name, '') AS tool_name,
	coalesce(telegram_message_id, 0) AS telegram_message_id, coalesce(update_id, 0) AS update_id,
	metadata, created_at, coalesce(written_at, created_at) AS written_at,
	CASE WHEN tool_calls IS NOT NULL AND metadata->>'reasoning_from' = 'reasoning_content'
		THEN coalesce(metadata->>'reasoning', '') ELSE '' END AS reasoning_back,
	CASE WHEN role = 'user' THEN metadata->'media' END AS media FROM messages
WHERE conversation_id = (SELECT id FROM conversations WHERE chat_id = $1 AND message_thread_id IS NOT DISTINCT FROM nullif($2::bigint, 0) AND reset_at IS NULL ORDER BY created_at DESC LIMIT 1) AND role = 'user' ORDER BY id DESC LIMIT 1

-- name: cancelRemovedApprovals
-- cancelRemovedApprovals cancels the pending approvals of the tool calls
-- of conversation $1's rows from id $2 on, and logs approval_decided.
WITH decided AS (
	UPDATE pending_approvals SET status = 'cancelled', decision_at = now(), decision_reason = $3
	WHERE status = 'pending' AND assistant_message_id IN (SELECT id FROM messages WHERE conversation_id = $1 AND id >= $2)
	RETURNING *
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

-- name: retryUserRow
-- retryUserRow is the last user row of chat $1's current conversation
-- in topic $2, with its conversation's mode and model; none when that row
-- is forgotten (a retry would show it to the model again).
SELECT m.conversation_id, m.id, c.mode, coalesce(c.model, '') FROM (SELECT id, forgotten, conversation_id::text AS conversation_id, role, content, tool_calls,
	coalesce(tool_call_id, '') AS tool_call_id, coalesce(tool_name, '') AS tool_name,
	coalesce(telegram_message_id, 0) AS telegram_message_id, coalesce(update_id, 0) AS update_id,
	metadata, created_at, coalesce(written_at, created_at) AS written_at,
	CASE WHEN tool_calls IS NOT NULL AND metadata->>'reasoning_from' = 'reasoning_content'
		THEN coalesce(metadata->>'reasoning', '') ELSE '' END AS reasoning_back,
	CASE WHEN role = 'user' THEN metadata->'media' END AS media FROM messages
WHERE conversation_id = (SELECT id FROM conversations WHERE chat_id = $1 AND message_thread_id IS NOT DISTINCT FROM nullif($2::bigint, 0) AND reset_at IS NULL ORDER BY created_at DESC LIMIT 1) AND role = 'user' ORDER BY id DESC LIMIT 1) m
JOIN conversations c ON c.id = m.conversation_id::uuid WHERE NOT m.forgotten

-- name: retryHistory
-- retryHistory is the newest $2 rows of chat $1's current conversation
-- in topic $3, forgotten ones left out.
SELECT * FROM (SELECT id, conversation_id::text AS conversation_id, role, content, tool_calls,
	coalesce(tool_call_id, '') AS tool_call_id, coalesce(tool_name, '') AS tool_name,
	coalesce(telegram_message_id, 0) AS telegram_message_id, coalesce(update_id, 0) AS update_id,
	metadata, created_at, coalesce(written_at, created_at) AS written_at,
	CASE WHEN tool_calls IS NOT NULL AND metadata->>'reasoning_from' = 'reasoning_content'
		THEN coalesce(metadata->>'reasoning', '') ELSE '' END AS reasoning_back,
	CASE WHEN role = 'user' THEN metadata->'media' END AS media FROM messages m
	WHERE m.conversation_id >= (SELECT id FROM conversations WHERE chat_id = $1 AND message_thread_id IS NOT DISTINCT FROM nullif($3::bigint, 0) AND reset_at IS NULL ORDER BY created_at DESC LIMIT 1)
	  AND m.conversation_id <= (SELECT id FROM conversations WHERE chat_id = $1 AND message_thread_id IS NOT DISTINCT FROM nullif($3::bigint, 0) AND reset_at IS NULL ORDER BY created_at DESC LIMIT 1)
	  AND NOT m.forgotten
	ORDER BY m.conversation_id DESC, m.id DESC LIMIT $2) newest ORDER BY id

-- name: retrySummary
-- retrySummary is the newest summary of chat $1's current conversation
-- in topic $2.
SELECT coalesce((SELECT content FROM conversation_summaries WHERE conversation_id = (SELECT id FROM conversations WHERE chat_id = $1 AND message_thread_id IS NOT DISTINCT FROM nullif($2::bigint, 0) AND reset_at IS NULL ORDER BY created_at DESC LIMIT 1)
		ORDER BY to_message_id DESC LIMIT 1), '')

-- name: cancelTurnReminders
UPDATE reminders SET status = 'cancelled'
		WHERE source_message_id = $1 AND status = 'pending' RETURNING text

-- name: deleteTurnFacts
DELETE FROM memories WHERE source_message_id = $1 RETURNING content

-- name: earlierRollback
SELECT removed, removed_by_role FROM conversation_rollbacks WHERE update_id = $1

-- name: removeRows
DELETE FROM messages WHERE conversation_id = $1 AND id >= $2
		RETURNING role, role = 'user' OR (role = 'assistant' AND tool_calls IS NULL) AS shown

-- name: logRollback
INSERT INTO conversation_rollbacks
		(conversation_id, chat_id, command, update_id, first_removed_id, removed, removed_by_role)
		VALUES (@conversation_id, @chat_id, @command, NULLIF(@update_id::bigint, 0), @first_removed_id, @removed, @removed_by_role)

