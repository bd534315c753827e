SELECT removed, removed_by_role FROM conversation_rollbacks WHERE update_id = $1
