UPDATE memory_jobs SET leased_until = NULL, updated_at = now(),
		last_message_id = greatest(last_message_id, $2) WHERE job = $1
