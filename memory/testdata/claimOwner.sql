WITH used AS (DELETE FROM access_claim)
INSERT INTO access_grants (kind, telegram_id, status) VALUES ('user', $1, 'owner')
ON CONFLICT (kind, telegram_id) DO UPDATE SET status = 'owner', granted_by = NULL, updated_at = now()
