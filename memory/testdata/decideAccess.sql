WITH request AS (
	UPDATE access_requests SET status = $2, decided_at = now(), decided_by = $3
	WHERE id = $1 AND status = 'pending' AND expires_at > now()
	RETURNING id, kind, telegram_id, chat_id, telegram_user_id, first_name, last_name, username, language_code,
		chat_title, created_at, expires_at
), granted AS (
	INSERT INTO access_grants (kind, telegram_id, status, granted_by)
	SELECT kind, telegram_id, $2, $3 FROM request WHERE $2 IN ('allowed', 'blocked')
	ON CONFLICT (kind, telegram_id) DO UPDATE SET status = EXCLUDED.status, granted_by = EXCLUDED.granted_by, updated_at = now()
	WHERE access_grants.status <> 'owner'
)
SELECT id, kind, telegram_id, chat_id, telegram_user_id, first_name, last_name, username, language_code,
	chat_title, created_at, expires_at
FROM request
