INSERT INTO web_sessions (token_hash, telegram_user_id, csrf_token, user_agent, expires_at)
VALUES (@token_hash, @user_id, @csrf_token, left(@user_agent, 300), now() + @ttl::interval)
RETURNING id
