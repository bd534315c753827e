SELECT l.telegram_user_id, coalesce(u.username, ''), coalesce(u.first_name, ''),
	coalesce(sum(l.total_tokens), 0), count(*)
FROM llm_calls l
LEFT JOIN users u ON u.telegram_user_id = l.telegram_user_id
WHERE l.created_at >= $1 AND l.telegram_user_id IS NOT NULL
GROUP BY l.telegram_user_id, u.username, u.first_name
ORDER BY 4 DESC
LIMIT 50
