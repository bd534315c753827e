UPDATE updates SET bot_id = $1 WHERE bot_id = 0
