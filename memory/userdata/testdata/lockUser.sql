SELECT FROM users WHERE telegram_user_id = $1 FOR UPDATE
