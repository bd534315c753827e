UPDATE memory_jobs SET leased_until = clock_timestamp() + $2::interval
		WHERE job = $1 AND (leased_until IS NULL OR leased_until < clock_timestamp()) RETURNING last_message_id
