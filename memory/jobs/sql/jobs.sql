-- A background job keeps off rows younger than its settle interval: row ids
-- are handed out before their transactions commit, so a younger row with a
-- smaller id may still appear; a turn's batch commits within milliseconds.

-- name: leaseJob
UPDATE memory_jobs SET leased_until = clock_timestamp() + $2::interval
		WHERE job = $1 AND (leased_until IS NULL OR leased_until < clock_timestamp()) RETURNING last_message_id

-- name: releaseJob
UPDATE memory_jobs SET leased_until = NULL, updated_at = now(),
		last_message_id = greatest(last_message_id, $2) WHERE job = $1

-- name: advanceJobCursor
UPDATE memory_jobs SET last_message_id = greatest(last_message_id, $2), updated_at = now() WHERE job = $1

-- name: rowsToEmbed
SELECT id, conversation_id::text, left(membot_plain_text(content), @max_chars) AS text FROM messages
		WHERE id > @after_id AND role IN ('user', 'assistant') AND created_at < clock_timestamp() - @settle::interval ORDER BY id LIMIT @max_rows

-- name: answeredTurns
-- answeredTurns is up to max_rows final answers after row after_id,
-- oldest first, settled for settle and not forgotten, each with the user row before it (its
-- text, when it was written, the kind of its first file, whether Telegram
-- marked it forwarded, whether it is a scheduled task's run, the inline
-- bot it was sent via)
-- and the names of the tools that ran between the two.
SELECT a.id AS answer_id, a.conversation_id::text AS conversation_id, c.chat_id,
		coalesce((u.metadata->>'author_id')::bigint, c.telegram_user_id) AS user_id, coalesce(u.id, 0) AS user_message_id,
		left(coalesce(membot_plain_text(u.content), ''), @max_chars) AS user_text, left(a.content, @max_chars) AS answer_text, coalesce(u.written_at, a.created_at) AS at,
		coalesce(u.metadata->'media'->0->>'kind', '') AS user_media, coalesce((u.metadata->>'forwarded')::boolean, false) AS user_forwarded,
		coalesce(u.metadata ? 'scheduled', false) AS user_scheduled, coalesce(u.metadata->>'via_bot', '') AS user_via_bot, ARRAY(SELECT DISTINCT t.tool_name FROM messages t WHERE t.conversation_id = a.conversation_id AND t.role = 'tool'
			AND t.id > coalesce(u.id, 0) AND t.id < a.id AND t.tool_name IS NOT NULL ORDER BY t.tool_name) AS tools
	FROM messages a JOIN conversations c ON c.id = a.conversation_id
	LEFT JOIN LATERAL (SELECT id, content, metadata, coalesce(written_at, created_at) AS written_at FROM messages
		WHERE conversation_id = a.conversation_id AND role = 'user' AND id < a.id ORDER BY id DESC LIMIT 1) u ON true
	WHERE a.id > @after_id AND a.role = 'assistant' AND a.tool_calls IS NULL AND NOT a.forgotten AND a.created_at < clock_timestamp() - @settle::interval
	ORDER BY a.id LIMIT @max_rows

-- name: newestMessageID
SELECT coalesce(max(id), 0) FROM messages
