UPDATE conversations SET telegram_user_id = 0
			WHERE telegram_user_id = $1 AND chat_id <> $1
