INSERT INTO conversation_rollbacks
		(conversation_id, chat_id, command, update_id, first_removed_id, removed, removed_by_role)
		VALUES ($1, $2, $3, NULLIF($4::bigint, 0), $5, $6, $7)
