SELECT d.id, coalesce(u.language_code, '')
FROM (SELECT telegram_id AS id FROM access_grants WHERE status = 'owner' UNION SELECT unnest($1::bigint[])) d
LEFT JOIN users u ON u.telegram_user_id = d.id
ORDER BY d.id
