WITH old AS (
	SELECT id, lower(content) = lower($3) AS same FROM memories WHERE id = $1 AND telegram_user_id = $2 AND superseded_by IS NULL FOR UPDATE
), refreshed AS (
	UPDATE memories m SET updated_at = clock_timestamp() FROM old WHERE m.id = old.id AND old.same
	RETURNING m.id, m.content, coalesce(m.source_message_id, 0) AS source_message_id, m.created_at, m.updated_at, m.origin
), added AS (
	INSERT INTO memories (telegram_user_id, content, source_message_id, origin)
	SELECT $2, $3, NULLIF($4::bigint, 0), $5 FROM old WHERE NOT old.same
	RETURNING id, content, coalesce(source_message_id, 0) AS source_message_id, created_at, updated_at, origin
), marked AS (
	UPDATE memories m SET superseded_by = added.id, valid_until = clock_timestamp() FROM added WHERE m.id = $1
)
SELECT * FROM refreshed UNION ALL SELECT * FROM added
