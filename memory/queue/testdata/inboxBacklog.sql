SELECT count(*), coalesce(extract(epoch FROM now() - min(received_at)), 0)::float8,
		(SELECT count(*) FROM conversations WHERE reset_at IS NOT NULL),
		(SELECT coalesce(extract(epoch FROM now() - min(reset_at)), 0)::float8 FROM conversations WHERE reset_at IS NOT NULL)
		FROM updates WHERE state <> 'done'
