WITH gone AS (
	DELETE FROM memories WHERE telegram_user_id = $1 RETURNING *
), sources AS (
	SELECT s.id, s.conversation_id FROM messages s WHERE s.id IN (SELECT source_message_id FROM gone)
), marked AS (
	UPDATE messages m SET forgotten = true FROM sources s
	WHERE m.conversation_id = s.conversation_id AND m.id >= s.id AND NOT m.forgotten
	  AND m.id < coalesce((SELECT min(n.id) FROM messages n WHERE n.conversation_id = s.conversation_id AND n.role = 'user' AND n.id > s.id), 9223372036854775807)
), dropped AS (
	DELETE FROM conversation_summaries WHERE chat_id = $1 AND EXISTS (SELECT 1 FROM gone)
)
SELECT count(*) FROM gone WHERE superseded_by IS NULL
