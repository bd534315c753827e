INSERT INTO forgotten_facts (telegram_user_id, terms, need) VALUES ($1, $2, $3)
