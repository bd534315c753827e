SELECT count(*) FROM forgotten_facts WHERE telegram_user_id = $1
