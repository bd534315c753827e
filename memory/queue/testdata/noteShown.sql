UPDATE updates SET shown_message_ids = $2 WHERE update_id = $1
