SELECT m.id, m.content, m.origin, m.created_at, m.updated_at, m.superseded_by, m.valid_until,
	coalesce(src.id, 0), CASE WHEN src.forgotten THEN '' ELSE left(coalesce(src.content, ''), 2001) END,
	coalesce(src.role, ''), src.created_at, coalesce(src.forgotten, false)
FROM memories m
LEFT JOIN messages src ON src.id = m.source_message_id
WHERE m.telegram_user_id = $1
ORDER BY (m.superseded_by IS NULL) DESC, m.updated_at DESC, m.id DESC
LIMIT 500
