UPDATE web_sessions SET last_seen_at = now()
WHERE token_hash = $1 AND ended_at IS NULL AND expires_at > now()
RETURNING id, telegram_user_id, csrf_token, user_agent, created_at, last_seen_at, expires_at
