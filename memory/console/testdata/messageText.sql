SELECT content FROM messages WHERE id = $1
