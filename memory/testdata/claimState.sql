SELECT EXISTS (SELECT 1 FROM access_grants WHERE status = 'owner'),
	coalesce((SELECT code FROM access_claim WHERE expires_at > now()), ''),
	EXISTS (SELECT 1 FROM access_claim),
	(SELECT count(*) FROM access_claim_failures WHERE telegram_user_id = $1 AND failed_at > now() - interval '1 hour')
