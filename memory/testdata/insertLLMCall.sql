INSERT INTO llm_calls
	(telegram_user_id, chat_id, conversation_id, update_id, model, prompt_tokens, completion_tokens, latency_ms, status, error, usage_estimated,
	 purpose, audio_seconds)
VALUES (NULLIF($1::bigint, 0), NULLIF($2::bigint, 0), NULLIF($3, '')::uuid, NULLIF($4::bigint, 0), $5, $6, $7, $8, $9, NULLIF($10, ''), $11,
	coalesce(NULLIF($12, ''), 'chat'), NULLIF($13::double precision, 0))
