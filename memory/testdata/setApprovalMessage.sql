UPDATE pending_approvals SET telegram_message_id = $2 WHERE id = $1
