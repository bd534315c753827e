WITH same AS (
	UPDATE memories SET updated_at = clock_timestamp(), source_message_id = coalesce(source_message_id, NULLIF($3::bigint, 0))
	WHERE telegram_user_id = $1 AND lower(content) = lower($2) AND superseded_by IS NULL
	RETURNING id, content, coalesce(source_message_id, 0) AS source_message_id, created_at, updated_at, origin
), added AS (
	INSERT INTO memories (telegram_user_id, content, source_message_id, origin)
	SELECT $1, $2, NULLIF($3::bigint, 0), $5
	WHERE NOT EXISTS (SELECT 1 FROM same)
	  AND (SELECT count(*) FROM memories WHERE telegram_user_id = $1 AND superseded_by IS NULL) < $4
	RETURNING id, content, coalesce(source_message_id, 0) AS source_message_id, created_at, updated_at, origin
)
SELECT * FROM same UNION ALL SELECT * FROM added LIMIT 1
