-- name: addSignInLink
-- A one-time link for an admin: only the token's hash is kept.
INSERT INTO web_signin_links (token_hash, telegram_user_id, expires_at)
VALUES (@token_hash, @user_id, now() + @ttl::interval)

-- name: useSignInLink
-- Uses a link once: the row is marked in the same statement that finds
-- it, so two requests with one link open one session at most.
UPDATE web_signin_links SET used_at = now()
WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now()
RETURNING telegram_user_id

-- name: addSession
INSERT INTO web_sessions (token_hash, telegram_user_id, csrf_token, user_agent, expires_at)
VALUES (@token_hash, @user_id, @csrf_token, left(@user_agent, 300), now() + @ttl::interval)
RETURNING id

-- name: session
-- A live session by its token's hash; seeing it keeps last_seen_at
-- within a minute of the truth without a write on every request.
UPDATE web_sessions SET last_seen_at = now()
WHERE token_hash = $1 AND ended_at IS NULL AND expires_at > now()
RETURNING id, telegram_user_id, csrf_token, user_agent, created_at, last_seen_at, expires_at

-- name: sessions
-- The sessions still open, newest first.
SELECT id, telegram_user_id, csrf_token, user_agent, created_at, last_seen_at, expires_at
FROM web_sessions
WHERE ended_at IS NULL AND expires_at > now()
ORDER BY created_at DESC
LIMIT 100

-- name: endSession
UPDATE web_sessions SET ended_at = now() WHERE id = $1 AND ended_at IS NULL

-- name: dropOldSignIns
-- Links and sessions a day past their end are of no use to anyone.
WITH links AS (
	DELETE FROM web_signin_links WHERE expires_at < now() - interval '1 day'
)
DELETE FROM web_sessions WHERE coalesce(ended_at, expires_at) < now() - interval '1 day'
