SELECT model, purpose, coalesce(sum(total_tokens), 0), count(*), count(*) FILTER (WHERE status <> 'ok')
FROM llm_calls
WHERE created_at >= $1
GROUP BY model, purpose
ORDER BY 3 DESC
LIMIT 50
