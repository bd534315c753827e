WITH links AS (
	DELETE FROM web_signin_links WHERE expires_at < now() - interval '1 day'
)
DELETE FROM web_sessions WHERE coalesce(ended_at, expires_at) < now() - interval '1 day'
