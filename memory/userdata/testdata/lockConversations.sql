SELECT FROM conversations WHERE chat_id = $1 OR telegram_user_id = $1 OR reset_at IS NOT NULL
			FOR UPDATE
