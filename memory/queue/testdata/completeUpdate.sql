UPDATE updates SET state = 'done', done_at = now(), error = NULLIF($2, '') WHERE update_id = $1
