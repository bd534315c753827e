UPDATE updates SET state = 'done', done_at = now(), error = NULLIF($2, ''), dropped = NULLIF($3, '') WHERE update_id = $1
