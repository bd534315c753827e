UPDATE reminders SET status = 'cancelled'
		WHERE source_message_id = $1 AND status = 'pending' RETURNING text
