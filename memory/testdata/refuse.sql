INSERT INTO access_refusals (telegram_user_id, chat_id, day, refused_update_id)
VALUES ($1, $2, $3::date, $4)
ON CONFLICT (telegram_user_id, chat_id, day) DO UPDATE SET
	attempts = access_refusals.attempts + (access_refusals.refused_update_id <> EXCLUDED.refused_update_id)::int,
	last_at = now()
RETURNING refused_update_id = $4
