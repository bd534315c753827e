-- name: lockUserBounds
-- lockUserBounds takes user $1's lock until the transaction ends: what
-- counts against one of the user's bounds (the day's tokens, their tasks)
-- is checked and added under it, so that requests from several chats at
-- once are decided one after the other. A statement's snapshot is taken
-- when it starts, so the lock is taken by a statement of its own, before.
SELECT pg_advisory_xact_lock(hashtextextended('membot user ' || $1::bigint::text, 0))

-- name: storedPicture
-- storedPicture is a picture drawn for update $2 in chat $1 from prompt $3
-- and not yet sent: what the update, handled again, sends.
SELECT llm_call_id, data, mime_type, revised_prompt FROM drawn_pictures
WHERE chat_id = $1 AND update_id = $2 AND prompt = $3 ORDER BY llm_call_id LIMIT 1

-- name: reservePicture
-- reservePicture reserves a picture's $6 tokens for user $1 in chat $2
-- (conversation $3, update $4, model $5): an image call is written with
-- them, status 'drawing', when update $4 drew fewer than $7 pictures in
-- the last day ($7 = 0: no bound) and the user's tokens since $8 and these
-- stay within $9 ($9 < 0: no limit). It returns the pictures drawn, the
-- tokens spent, and the reserved call's id (0: none). Pictures kept a day
-- and never sent are deleted on the way.
WITH drawn AS (
	SELECT count(*)::int AS n FROM llm_calls
	WHERE $4::bigint <> 0 AND update_id = $4 AND purpose = 'image' AND chat_id = $2 AND prompt_tokens > 0 AND created_at > now() - interval '1 day'
), spent AS (
	SELECT coalesce(sum(prompt_tokens + completion_tokens), 0)::bigint AS t FROM llm_calls WHERE telegram_user_id = $1 AND created_at >= $8
), reserved AS (
	INSERT INTO llm_calls (telegram_user_id, chat_id, conversation_id, update_id, model, prompt_tokens, status, usage_estimated, purpose)
	SELECT NULLIF($1::bigint, 0), NULLIF($2::bigint, 0), NULLIF($3, '')::uuid, NULLIF($4::bigint, 0), $5, $6::int, 'drawing', true, 'image'
	FROM drawn, spent WHERE ($7::int = 0 OR drawn.n < $7) AND ($9::bigint < 0 OR spent.t + $6::int <= $9)
	RETURNING id
), stale AS (
	DELETE FROM drawn_pictures WHERE created_at < now() - interval '1 day'
)
SELECT drawn.n, spent.t, coalesce((SELECT id FROM reserved), 0) FROM drawn, spent

-- name: finishPicture
-- finishPicture records how reserved image call $1 ended: its status,
-- error and latency, and the tokens it counts ($5: 0 gives the reserved
-- tokens back).
UPDATE llm_calls SET status = $2, error = NULLIF($3, ''), latency_ms = $4, prompt_tokens = $5 WHERE id = $1 AND purpose = 'image'

-- name: keepPicture
INSERT INTO drawn_pictures (llm_call_id, chat_id, update_id, prompt, data, mime_type, revised_prompt)
VALUES ($1, $2, $3, $4, $5, $6, $7)

-- name: pictureSent
DELETE FROM drawn_pictures WHERE llm_call_id = $1
