UPDATE llm_calls SET status = $2, error = NULLIF($3, ''), latency_ms = $4, prompt_tokens = $5 WHERE id = $1 AND purpose = 'image'
