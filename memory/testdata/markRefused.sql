UPDATE messages SET metadata = coalesce(metadata, '{}'::jsonb) || jsonb_build_object('refused', $2::text)
WHERE id = $1 AND role = 'user'
