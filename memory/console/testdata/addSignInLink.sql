INSERT INTO web_signin_links (token_hash, telegram_user_id, expires_at)
VALUES (@token_hash, @user_id, now() + @ttl::interval)
