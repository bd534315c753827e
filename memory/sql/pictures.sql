-- name: lockUserBounds
-- lockUserBounds takes user $1's lock until the transaction ends: what
-- counts against one of the user's bounds (the day's tokens, their tasks)
-- is checked and added under it, so that requests from several chats at
-- once are decided one after the other; so are a forget and the facts
-- read from the user's words, so a fact read before a forget is not saved
-- after it. A statement's snapshot is taken
-- when it starts, so the lock is taken by a statement of its own, before.
SELECT pg_advisory_xact_lock(hashtextextended('membot user ' || $1::bigint::text, 0))

-- name: storedPicture
-- storedPicture is a picture drawn for update $2 in chat $1 from prompt $3
-- and not yet sent: what the update, handled again, sends.
SELECT llm_call_id, data, mime_type, revised_prompt FROM drawn_pictures
WHERE chat_id = $1 AND update_id = $2 AND prompt = $3 ORDER BY llm_call_id LIMIT 1

-- name: reservePicture
-- reservePicture reserves a picture's tokens for the user: an image call
-- is written with them, status 'drawing', when the update drew fewer than
-- per_update pictures in the last day (0: no bound) and the user's tokens
-- since day_start and these stay within day_limit (< 0: no limit). It
-- returns the pictures drawn, the tokens spent, and the reserved call's id
-- (0: none). Pictures kept a day and never sent are deleted on the way.
WITH drawn AS (
	SELECT count(*)::int AS n FROM llm_calls
	WHERE @update_id::bigint <> 0 AND update_id = @update_id AND purpose = 'image' AND chat_id = @chat_id
		AND prompt_tokens > 0 AND created_at > now() - interval '1 day'
), spent AS (
	SELECT coalesce(sum(prompt_tokens + completion_tokens), 0)::bigint AS t FROM llm_calls
	WHERE telegram_user_id = @telegram_user_id AND created_at >= @day_start
), reserved AS (
	INSERT INTO llm_calls (telegram_user_id, chat_id, conversation_id, update_id, model, prompt_tokens, status, usage_estimated, purpose)
	SELECT NULLIF(@telegram_user_id::bigint, 0), NULLIF(@chat_id::bigint, 0), NULLIF(@conversation_id, '')::uuid,
		NULLIF(@update_id::bigint, 0), @model, @prompt_tokens::int, 'drawing', true, 'image'
	FROM drawn, spent WHERE (@per_update::int = 0 OR drawn.n < @per_update)
		AND (@day_limit::bigint < 0 OR spent.t + @prompt_tokens::int <= @day_limit)
	RETURNING id
), stale AS (
	DELETE FROM drawn_pictures WHERE created_at < now() - interval '1 day'
)
SELECT drawn.n, spent.t, coalesce((SELECT id FROM reserved), 0) FROM drawn, spent

-- name: finishPicture
-- finishPicture records how a reserved image call ended: its status,
-- error and latency, and the tokens it counts (0 gives the reserved
-- tokens back).
UPDATE llm_calls SET status = @status, error = NULLIF(@error, ''), latency_ms = @latency_ms, prompt_tokens = @prompt_tokens
WHERE id = @id AND purpose = 'image'

-- name: keepPicture
INSERT INTO drawn_pictures (llm_call_id, chat_id, update_id, prompt, data, mime_type, revised_prompt)
VALUES (@llm_call_id, @chat_id, @update_id, @prompt, @data, @mime_type, @revised_prompt)

-- name: pictureSent
DELETE FROM drawn_pictures WHERE llm_call_id = $1
