-- name: insertEvent
-- insertEvent stores an event; the types that happen once per update
-- (see the index events_once_per_update) are stored once however often the
-- update is handled.
INSERT INTO events (type, telegram_user_id, chat_id, conversation_id, update_id, payload)
VALUES ($1, NULLIF($2::bigint, 0), NULLIF($3::bigint, 0), NULLIF($4, '')::uuid, NULLIF($5::bigint, 0), coalesce($6::jsonb, '{}'))
ON CONFLICT (type, update_id)
WHERE type IN ('message_received', 'reply_sent', 'access_denied', 'rate_limited') DO NOTHING

-- name: insertLLMCall
INSERT INTO llm_calls
	(telegram_user_id, chat_id, conversation_id, update_id, model, prompt_tokens, completion_tokens, latency_ms, status, error, usage_estimated,
	 purpose, audio_seconds)
VALUES (NULLIF($1::bigint, 0), NULLIF($2::bigint, 0), NULLIF($3, '')::uuid, NULLIF($4::bigint, 0), $5, $6, $7, $8, $9, NULLIF($10, ''), $11,
	coalesce(NULLIF($12, ''), 'chat'), NULLIF($13::double precision, 0))

-- name: eventsSince
-- eventsSince counts a user's events of a type since a time (the index
-- events_user_type_time), and finds the oldest of them.
SELECT count(*), coalesce(min(occurred_at), 'epoch') FROM events
WHERE telegram_user_id = $1 AND type = $2 AND occurred_at >= $3

-- name: taskNoticeSent
-- taskNoticeSent tells whether user $1's scheduled runs in chat $2 were
-- told of limit $4 since $3: a run stopped by a limit says so once a day,
-- not at each run.
SELECT EXISTS (SELECT 1 FROM events WHERE telegram_user_id = $1 AND type = 'rate_limited' AND occurred_at >= $3
	AND chat_id = $2 AND payload->>'limit' = $4 AND payload->>'notified' = 'true' AND payload ? 'task_id')
