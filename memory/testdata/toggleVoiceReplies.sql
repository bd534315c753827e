INSERT INTO chat_settings (chat_id, voice_replies) VALUES ($1, true)
ON CONFLICT (chat_id) DO UPDATE SET voice_replies = NOT chat_settings.voice_replies, updated_at = now()
RETURNING voice_replies
