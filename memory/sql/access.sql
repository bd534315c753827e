-- name: refuse
-- refuse counts the refusal and says whether this update is the day's
-- first (the one that gets the answer); a retry of that update is too.
INSERT INTO access_refusals (telegram_user_id, chat_id, day, refused_update_id)
VALUES (@telegram_user_id, @chat_id, @day::date, @refused_update_id)
ON CONFLICT (telegram_user_id, chat_id, day) DO UPDATE SET
	attempts = access_refusals.attempts + (access_refusals.refused_update_id <> EXCLUDED.refused_update_id)::int,
	last_at = now()
RETURNING refused_update_id = @refused_update_id

-- name: setUpdatePayload
UPDATE updates SET payload = $2 WHERE update_id = $1


-- name: accessOf
-- accessOf is what the owner decided on a user and a chat, and whether the
-- bot has an owner: the gate's one question in owner mode.
SELECT coalesce((SELECT status FROM access_grants WHERE kind = 'user' AND telegram_id = $1), ''),
	coalesce((SELECT status FROM access_grants WHERE kind = 'group' AND telegram_id = $2), ''),
	EXISTS (SELECT 1 FROM access_grants WHERE status = 'owner')

-- name: accessClaim
-- accessClaim keeps a live claim code while the bot has no owner: $1
-- becomes the code when there is none or it expired ($2 seconds from now).
WITH owner AS (
	SELECT EXISTS (SELECT 1 FROM access_grants WHERE status = 'owner') AS claimed
), fresh AS (
	INSERT INTO access_claim (code, expires_at)
	SELECT $1, now() + $2::double precision * interval '1 second' FROM owner WHERE NOT claimed
	ON CONFLICT (only_row) DO UPDATE SET code = EXCLUDED.code, created_at = now(), expires_at = EXCLUDED.expires_at
	WHERE access_claim.expires_at <= now()
	RETURNING code, expires_at
)
SELECT owner.claimed, coalesce(f.code, c.code, ''), coalesce(f.expires_at, c.expires_at, now()), EXISTS (SELECT 1 FROM users)
FROM owner LEFT JOIN fresh f ON true LEFT JOIN access_claim c ON true

-- name: lockAccess
-- lockAccess serialises, to the end of the transaction, the claims (one
-- owner) or the requests (a bounded number pending).
SELECT pg_advisory_xact_lock($1)

-- name: claimState
-- claimState is what a claim attempt is checked against: whether an owner
-- exists, the live code ('' when expired or none), whether a code exists,
-- and the user's wrong codes of the last hour.
SELECT EXISTS (SELECT 1 FROM access_grants WHERE status = 'owner'),
	coalesce((SELECT code FROM access_claim WHERE expires_at > now()), ''),
	EXISTS (SELECT 1 FROM access_claim),
	(SELECT count(*) FROM access_claim_failures WHERE telegram_user_id = $1 AND failed_at > now() - interval '1 hour')

-- name: claimOwner
-- claimOwner makes the user the owner, using the code up: only the one
-- who deletes it (of claims racing) inserts a row.
WITH used AS (DELETE FROM access_claim RETURNING 1)
INSERT INTO access_grants (kind, telegram_id, status) SELECT 'user', $1, 'owner' FROM used
ON CONFLICT (kind, telegram_id) DO UPDATE SET status = 'owner', granted_by = NULL, updated_at = now()

-- name: claimFailed
-- claimFailed counts a wrong code (once per update) and forgets the ones
-- older than a day.
WITH old AS (DELETE FROM access_claim_failures WHERE failed_at < now() - interval '1 day')
INSERT INTO access_claim_failures (telegram_user_id, update_id) VALUES ($1, $2)
ON CONFLICT DO NOTHING

-- name: askAccess
-- askAccess opens a request unless the asker's request within the
-- lifetime waits or was denied, or max_pending requests are pending
-- already (a revoked asker may ask anew). It returns the new
-- request's id (0: none opened) and the status of the asker's latest
-- request within the lifetime ('' for none).
WITH recent AS (
	SELECT status FROM access_requests
	WHERE kind = @kind AND telegram_id = @telegram_id AND status IN ('pending', 'denied')
		AND created_at > now() - @lifetime_seconds::double precision * interval '1 second'
	ORDER BY id DESC LIMIT 1
), pending AS (
	SELECT count(*) AS n FROM access_requests WHERE status = 'pending' AND expires_at > now()
), opened AS (
	INSERT INTO access_requests (kind, telegram_id, chat_id, telegram_user_id, first_name, last_name, username,
		language_code, chat_title, expires_at)
	SELECT @kind, @telegram_id, @chat_id, @telegram_user_id, @first_name, @last_name, @username, @language_code,
		@chat_title, now() + @lifetime_seconds::double precision * interval '1 second'
	WHERE NOT EXISTS (SELECT 1 FROM recent) AND (SELECT n FROM pending) < @max_pending
	RETURNING id, created_at, expires_at
)
SELECT coalesce((SELECT id FROM opened), 0), coalesce((SELECT created_at FROM opened), now()),
	coalesce((SELECT expires_at FROM opened), now()), coalesce((SELECT status FROM recent), '')

-- name: decideAccess
-- decideAccess decides a pending request ($2: allowed, denied or blocked,
-- by $3) and, allowed or blocked, records it for its asker (an owner stays
-- the owner). No row: the request is not pending (decided or expired).
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

-- name: setAccess
-- setAccess records the owner's word on a user or group (allowed or
-- blocked) and closes its pending requests with it; an owner stays the
-- owner. It returns whether anything changed.
WITH closed AS (
	UPDATE access_requests SET status = @status, decided_at = now(), decided_by = @granted_by
	WHERE kind = @kind AND telegram_id = @telegram_id AND status = 'pending'
)
INSERT INTO access_grants (kind, telegram_id, status, granted_by) VALUES (@kind, @telegram_id, @status, @granted_by)
ON CONFLICT (kind, telegram_id) DO UPDATE SET status = EXCLUDED.status, granted_by = EXCLUDED.granted_by, updated_at = now()
WHERE access_grants.status <> 'owner'

-- name: revokeAccess
-- revokeAccess forgets the owner's word on a user or group: a stranger
-- again, who may ask anew. The owner cannot be revoked.
DELETE FROM access_grants WHERE kind = $1 AND telegram_id = $2 AND status <> 'owner'

-- name: accessGrants
-- accessGrants lists the owner's words, the owners first, then the
-- allowed, then the blocked, each the latest first, with the name of the
-- user (or the group's title) as last seen.
SELECT g.kind, g.telegram_id, g.status,
	coalesce(u.first_name, r.first_name, ''), coalesce(u.username, r.username, ''), coalesce(r.chat_title, ''), g.updated_at
FROM access_grants g
LEFT JOIN users u ON g.kind = 'user' AND u.telegram_user_id = g.telegram_id
LEFT JOIN LATERAL (
	SELECT first_name, username, chat_title FROM access_requests
	WHERE kind = g.kind AND telegram_id = g.telegram_id ORDER BY id DESC LIMIT 1
) r ON true
ORDER BY CASE g.status WHEN 'owner' THEN 0 WHEN 'allowed' THEN 1 ELSE 2 END, g.updated_at DESC
LIMIT $1

-- name: pendingRequests
-- pendingRequests are the requests waiting for the owner, oldest first.
SELECT id, kind, telegram_id, chat_id, telegram_user_id, first_name, last_name, username, language_code,
	chat_title, created_at, expires_at
FROM access_requests WHERE status = 'pending' AND expires_at > now()
ORDER BY id LIMIT $1

-- name: accessDeciders
-- accessDeciders are who is asked about a request: the owners and the
-- admins $1, with the language they last wrote in.
SELECT d.id, coalesce(u.language_code, '')
FROM (SELECT telegram_id AS id FROM access_grants WHERE status = 'owner' UNION SELECT unnest($1::bigint[])) d
LEFT JOIN users u ON u.telegram_user_id = d.id
ORDER BY d.id
