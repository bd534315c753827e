WITH closed AS (
	UPDATE access_requests SET status = $3, decided_at = now(), decided_by = $4
	WHERE kind = $1 AND telegram_id = $2 AND status = 'pending'
)
INSERT INTO access_grants (kind, telegram_id, status, granted_by) VALUES ($1, $2, $3, $4)
ON CONFLICT (kind, telegram_id) DO UPDATE SET status = EXCLUDED.status, granted_by = EXCLUDED.granted_by, updated_at = now()
WHERE access_grants.status <> 'owner'
