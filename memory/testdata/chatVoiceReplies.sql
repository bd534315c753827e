SELECT coalesce((SELECT voice_replies FROM chat_settings WHERE chat_id = $1), false)
