SELECT update_id, payload FROM updates
		WHERE NOT (chat_id = $1 OR jsonb_path_exists(payload, '$.*.from ? (@.id == $uid)', jsonb_build_object('uid', $1::bigint))) AND jsonb_path_exists(payload, '$.** ? (@.id == $uid)', jsonb_build_object('uid', $1::bigint)) FOR UPDATE
