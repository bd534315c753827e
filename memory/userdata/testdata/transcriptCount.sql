SELECT count(*) FROM messages WHERE conversation_id = $1
