SELECT update_id, chat_id, state, coalesce(error, ''), received_at, attempts, crashes
FROM updates
WHERE error IS NOT NULL AND received_at >= $1
ORDER BY received_at DESC
LIMIT 20
