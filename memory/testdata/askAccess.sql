WITH recent AS (
	SELECT status FROM access_requests
	WHERE kind = $1 AND telegram_id = $2 AND status IN ('pending', 'denied')
		AND created_at > now() - $11::double precision * interval '1 second'
	ORDER BY id DESC LIMIT 1
), pending AS (
	SELECT count(*) AS n FROM access_requests WHERE status = 'pending' AND expires_at > now()
), opened AS (
	INSERT INTO access_requests (kind, telegram_id, chat_id, telegram_user_id, first_name, last_name, username,
		language_code, chat_title, expires_at)
	SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, now() + $11::double precision * interval '1 second'
	WHERE NOT EXISTS (SELECT 1 FROM recent) AND (SELECT n FROM pending) < $10
	RETURNING id, created_at, expires_at
)
SELECT coalesce((SELECT id FROM opened), 0), coalesce((SELECT created_at FROM opened), now()),
	coalesce((SELECT expires_at FROM opened), now()), coalesce((SELECT status FROM recent), '')
