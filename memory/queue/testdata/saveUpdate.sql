WITH v AS (
	SELECT $4::jsonb AS payload, md5($2::bigint::text || ':' || $4::jsonb::text)::uuid AS digest
), there AS (
	SELECT 1 FROM updates WHERE updates.bot_id = $1 AND updates.digest = md5($2::bigint::text || ':' || $4::jsonb::text)::uuid
), stored AS (
	INSERT INTO updates (bot_id, update_id, chat_id, payload, digest)
	SELECT $1,
		CASE WHEN (EXISTS (SELECT 1 FROM updates WHERE update_id = $2)
			OR EXISTS (SELECT 1 FROM messages WHERE update_id = $2)
			OR EXISTS (SELECT 1 FROM conversation_rollbacks WHERE update_id = $2)
			OR EXISTS (SELECT 1 FROM events WHERE type = 'message_received' AND update_id = $2)
			OR EXISTS (SELECT 1 FROM events WHERE type = 'reply_sent' AND update_id = $2)
			OR EXISTS (SELECT 1 FROM events WHERE type = 'access_denied' AND update_id = $2)
			OR EXISTS (SELECT 1 FROM events WHERE type = 'rate_limited' AND update_id = $2))
		THEN (greatest((SELECT max(update_id) FROM updates),
			(SELECT max(update_id) FROM messages),
			(SELECT max(update_id) FROM conversation_rollbacks),
			(SELECT max(update_id) FROM events WHERE type = 'message_received'),
			(SELECT max(update_id) FROM events WHERE type = 'reply_sent'),
			(SELECT max(update_id) FROM events WHERE type = 'access_denied'),
			(SELECT max(update_id) FROM events WHERE type = 'rate_limited')) + 1)
		ELSE $2 END,
		$3, v.payload, v.digest
	FROM v WHERE NOT EXISTS (SELECT 1 FROM there)
	ON CONFLICT DO NOTHING
	RETURNING update_id
)
SELECT (SELECT update_id FROM stored), EXISTS (SELECT 1 FROM there)
