SELECT id, content, coalesce(source_message_id, 0) AS source_message_id, created_at, updated_at, origin FROM (
	SELECT *, sum(length(content)) OVER (ORDER BY updated_at DESC, id DESC) AS running
	FROM memories WHERE telegram_user_id = $1 AND superseded_by IS NULL) f
WHERE running <= $2 ORDER BY updated_at DESC, id DESC
