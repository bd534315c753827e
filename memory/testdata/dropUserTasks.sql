UPDATE reminders SET status = 'cancelled' WHERE telegram_user_id = $1 AND schedule IS NOT NULL AND status IN ('pending', 'paused')
