SELECT coalesce((SELECT status FROM access_grants WHERE kind = 'user' AND telegram_id = $1), ''),
	coalesce((SELECT status FROM access_grants WHERE kind = 'group' AND telegram_id = $2), ''),
	EXISTS (SELECT 1 FROM access_grants WHERE status = 'owner')
