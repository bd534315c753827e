WITH v AS (
	SELECT $4::jsonb AS payload, md5($2::bigint::text || ':' || $4::jsonb::text)::uuid AS digest
), there AS (
	SELECT 1 FROM updates WHERE updates.bot_id = $1 AND updates.digest = md5($2::bigint::text || ':' || $4::jsonb::text)::uuid
), stored AS (
	INSERT INTO updates (bot_id, update_id, chat_id, payload, digest)
	SELECT $1, $2, $3, v.payload, v.digest
	FROM v WHERE NOT EXISTS (SELECT 1 FROM there) AND $2 > (SELECT max(through) FROM updates_freed)
	AND NOT EXISTS (SELECT 1 FROM messages WHERE update_id = $2)
	ON CONFLICT DO NOTHING
	RETURNING update_id
)
SELECT (SELECT update_id FROM stored), EXISTS (SELECT 1 FROM there)
