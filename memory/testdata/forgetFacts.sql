WITH RECURSIVE chain AS (
	(SELECT id FROM memories WHERE telegram_user_id = $2 AND superseded_by IS NULL AND ($1::bigint = 0 OR id = $1) AND NOT $4::bool
		ORDER BY updated_at DESC, id DESC OFFSET $3 LIMIT 1)
	UNION ALL SELECT m.id FROM memories m JOIN chain c ON m.superseded_by = c.id
), gone AS (
	DELETE FROM memories WHERE telegram_user_id = $2 AND ($4::bool OR id IN (SELECT id FROM chain)) RETURNING *
), sources AS (
	SELECT s.id, s.conversation_id FROM messages s WHERE s.id IN (SELECT source_message_id FROM gone)
), marked AS (
	UPDATE messages m SET forgotten = true FROM sources s
	WHERE m.conversation_id = s.conversation_id AND m.id >= s.id AND NOT m.forgotten
	  AND m.id < coalesce((SELECT min(n.id) FROM messages n WHERE n.conversation_id = s.conversation_id AND n.role = 'user' AND n.id > s.id), 9223372036854775807)
), dropped AS (
	DELETE FROM conversation_summaries WHERE chat_id = $2 AND EXISTS (SELECT 1 FROM gone)
)
SELECT id, content, coalesce(source_message_id, 0) AS source_message_id, created_at, updated_at, origin, superseded_by IS NULL AS current FROM gone
