SELECT coalesce(max(id), 0) FROM messages WHERE conversation_id = $1 AND role = 'user' AND id < $2
