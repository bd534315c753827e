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
