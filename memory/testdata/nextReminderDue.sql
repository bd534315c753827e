SELECT min(due_at) FROM reminders
		WHERE status = 'pending' OR (status = 'sending' AND NOT membot_owner_alive(owner_id))
