UPDATE updates SET crashes = crashes + 1 WHERE update_id = $1 AND owner_id = $2
RETURNING crashes, coalesce(shown_message_ids, '{}')
