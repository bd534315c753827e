SELECT EXISTS (SELECT 1 FROM reminders WHERE id = $1 AND status IN ('paused', 'cancelled'))
