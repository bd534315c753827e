SELECT count(*)::int FROM llm_calls
WHERE update_id = $2 AND purpose = 'image' AND chat_id = $1 AND prompt_tokens > 0 AND created_at > now() - interval '1 day'
