-- A background job keeps off rows younger than its settle interval: row ids
-- are handed out before their transactions commit, so a younger row with a
-- smaller id may still appear; a turn's batch commits within milliseconds.

-- name: enableVectors
SELECT membot_enable_vectors()

-- name: leaseJob
UPDATE memory_jobs SET leased_until = clock_timestamp() + $2::interval
		WHERE job = $1 AND (leased_until IS NULL OR leased_until < clock_timestamp()) RETURNING last_message_id

-- name: releaseJob
UPDATE memory_jobs SET leased_until = NULL, updated_at = now(),
		last_message_id = greatest(last_message_id, $2) WHERE job = $1

-- name: advanceJobCursor
UPDATE memory_jobs SET last_message_id = greatest(last_message_id, $2), updated_at = now() WHERE job = $1

-- name: rowsToEmbed
SELECT id, conversation_id::text, left(membot_plain_text(content), $4) AS text FROM messages
		WHERE id > $1 AND role IN ('user', 'assistant') AND created_at < clock_timestamp() - $3::interval ORDER BY id LIMIT $2

-- name: saveEmbeddings
INSERT INTO message_embeddings (message_id, conversation_id, model, embedding)
					VALUES ($1, $2::uuid, $3, $4::text::vector) ON CONFLICT (message_id) DO UPDATE SET model = excluded.model, embedding = excluded.embedding

-- name: answeredTurns
SELECT a.id AS answer_id, a.conversation_id::text AS conversation_id, c.chat_id,
		coalesce((u.metadata->>'author_id')::bigint, c.telegram_user_id) AS user_id, coalesce(u.id, 0) AS user_message_id,
		left(coalesce(membot_plain_text(u.content), ''), $4) AS user_text, left(a.content, $4) AS answer_text, a.created_at AS at
	FROM messages a JOIN conversations c ON c.id = a.conversation_id
	LEFT JOIN LATERAL (SELECT id, content, metadata FROM messages
		WHERE conversation_id = a.conversation_id AND role = 'user' AND id < a.id ORDER BY id DESC LIMIT 1) u ON true
	WHERE a.id > $1 AND a.role = 'assistant' AND a.tool_calls IS NULL AND a.created_at < clock_timestamp() - $3::interval
	ORDER BY a.id LIMIT $2

-- name: newestMessageID
SELECT coalesce(max(id), 0) FROM messages

