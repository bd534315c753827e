WITH target AS (
	SELECT id FROM conversations WHERE reset_at IS NOT NULL ORDER BY reset_at LIMIT 1 FOR UPDATE SKIP LOCKED
), doomed AS (
	SELECT m.id FROM messages m JOIN target t ON m.conversation_id = t.id LIMIT $1
), gone_messages AS (
	DELETE FROM messages WHERE id IN (SELECT id FROM doomed) RETURNING 1
), gone_conversation AS (
	DELETE FROM conversations WHERE id IN (SELECT id FROM target) AND (SELECT count(*) FROM doomed) < $1 RETURNING 1
)
SELECT (SELECT count(*) FROM gone_messages) + (SELECT count(*) FROM gone_conversation)
