SELECT terms, need FROM forgotten_facts WHERE telegram_user_id = $1 ORDER BY id DESC LIMIT 1000
