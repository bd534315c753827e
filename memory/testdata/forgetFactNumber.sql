WITH RECURSIVE chain AS (
	(SELECT id FROM memories WHERE telegram_user_id = $1 AND superseded_by IS NULL
		ORDER BY updated_at DESC, id DESC OFFSET $2 LIMIT 1)
	UNION ALL SELECT m.id FROM memories m JOIN chain c ON m.superseded_by = c.id
), gone AS (
	DELETE FROM memories WHERE id IN (SELECT id FROM chain) RETURNING *
)
SELECT id, content, coalesce(source_message_id, 0) AS source_message_id, created_at, updated_at, origin FROM gone WHERE superseded_by IS NULL
