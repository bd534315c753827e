UPDATE updates SET payload = $2 WHERE update_id = $1
