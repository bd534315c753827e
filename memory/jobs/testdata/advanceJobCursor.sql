UPDATE memory_jobs SET last_message_id = greatest(last_message_id, $2), updated_at = now() WHERE job = $1
