SELECT id, telegram_user_id, csrf_token, user_agent, created_at, last_seen_at, expires_at
FROM web_sessions
WHERE ended_at IS NULL AND expires_at > now()
ORDER BY created_at DESC
LIMIT 100
