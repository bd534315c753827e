-- name: insertEvent
-- insertEvent stores an event; the types that happen once per update
-- (see the index events_once_per_update) are stored once however often the
-- update is handled.
INSERT INTO events (type, telegram_user_id, chat_id, conversation_id, update_id, payload)
VALUES (@type, NULLIF(@telegram_user_id::bigint, 0), NULLIF(@chat_id::bigint, 0), NULLIF(@conversation_id, '')::uuid,
	NULLIF(@update_id::bigint, 0), coalesce(@payload::jsonb, '{}'))
ON CONFLICT (type, update_id)
WHERE type IN ('message_received', 'reply_sent', 'access_denied', 'rate_limited') DO NOTHING

-- name: insertLLMCall
INSERT INTO llm_calls
	(telegram_user_id, chat_id, conversation_id, update_id, model, prompt_tokens, completion_tokens, latency_ms, status, error, usage_estimated,
	 purpose, audio_seconds)
VALUES (NULLIF(@telegram_user_id::bigint, 0), NULLIF(@chat_id::bigint, 0), NULLIF(@conversation_id, '')::uuid,
	NULLIF(@update_id::bigint, 0), @model, @prompt_tokens, @completion_tokens, @latency_ms, @status, NULLIF(@error, ''),
	@usage_estimated, coalesce(NULLIF(@purpose, ''), 'chat'), NULLIF(@audio_seconds::double precision, 0))

-- name: eventsSince
-- eventsSince counts a user's events of a type since a time (the index
-- events_user_type_time), and finds the oldest of them.
SELECT count(*), coalesce(min(occurred_at), 'epoch') FROM events
WHERE telegram_user_id = $1 AND type = $2 AND occurred_at >= $3

-- name: taskNoticeSent
-- taskNoticeSent tells whether a user's scheduled runs in a chat were
-- told of a limit since a time: a run stopped by a limit says so once a
-- day, not at each run.
SELECT EXISTS (SELECT 1 FROM events WHERE telegram_user_id = @telegram_user_id AND type = 'rate_limited'
	AND occurred_at >= @since AND chat_id = @chat_id AND payload->>'limit' = @limit
	AND payload->>'notified' = 'true' AND payload ? 'task_id')
