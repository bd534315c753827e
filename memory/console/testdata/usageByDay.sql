SELECT (created_at AT TIME ZONE $2)::date AS day, coalesce(sum(total_tokens), 0), count(*)
FROM llm_calls
WHERE created_at >= $1
GROUP BY day
ORDER BY day
