UPDATE messages SET forgotten = true WHERE conversation_id = $1 AND id BETWEEN $2 AND $3 AND NOT forgotten
