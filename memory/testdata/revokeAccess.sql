DELETE FROM access_grants WHERE kind = $1 AND telegram_id = $2 AND status <> 'owner'
