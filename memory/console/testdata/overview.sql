SELECT
	(SELECT count(*) FROM users),
	(SELECT count(DISTINCT chat_id) FROM conversations WHERE reset_at IS NULL),
	(SELECT greatest(reltuples, 0)::bigint FROM pg_class WHERE oid = 'messages'::regclass),
	(SELECT count(*) FROM updates WHERE state <> 'done'),
	(SELECT count(*) FROM updates WHERE error IS NOT NULL AND received_at >= $1),
	(SELECT coalesce(sum(total_tokens), 0) FROM llm_calls WHERE created_at >= $1),
	(SELECT count(*) FROM llm_calls WHERE created_at >= $1),
	(SELECT count(*) FROM pending_approvals WHERE status = 'pending'),
	(SELECT count(*) FROM reminders WHERE status = 'pending' AND schedule IS NULL),
	(SELECT count(*) FROM reminders WHERE status = 'pending' AND schedule IS NOT NULL)
