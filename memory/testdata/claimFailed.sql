WITH old AS (DELETE FROM access_claim_failures WHERE failed_at < now() - interval '1 day')
INSERT INTO access_claim_failures (telegram_user_id, update_id) VALUES ($1, $2)
ON CONFLICT DO NOTHING
