SELECT EXISTS (SELECT 1 FROM updates
	WHERE chat_id = $1 AND update_id > $2 AND state <> 'done' AND payload->'message'->>'media_group_id' = $3)
