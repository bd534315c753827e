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
