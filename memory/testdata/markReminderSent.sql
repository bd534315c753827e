UPDATE reminders SET status = 'sent', sent_at = now(), late = $3,
		telegram_message_id = NULLIF($2::bigint, 0), error = NULL WHERE id = $1
