UPDATE updates SET state = 'pending' WHERE owner_id = $1 AND state = 'processing'
