DELETE FROM memories WHERE source_message_id = $1 RETURNING content
