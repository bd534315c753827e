WITH used AS (DELETE FROM access_claim RETURNING 1)
INSERT INTO access_grants (kind, telegram_id, status) SELECT 'user', $1, 'owner' FROM used
ON CONFLICT (kind, telegram_id) DO UPDATE SET status = 'owner', granted_by = NULL, updated_at = now()
