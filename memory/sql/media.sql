-- Whether a chat's answers are also spoken (chat_settings.voice_replies) is
-- an expression StartTurn reads with the turn's row, in the same statement
-- (turnConversation); chatVoiceReplies is it alone, for the plan tests.

-- name: toggleVoiceReplies
-- toggleVoiceReplies turns a chat's spoken answers on when they were
-- off (or never set), off when on.
INSERT INTO chat_settings (chat_id, voice_replies) VALUES ($1, true)
ON CONFLICT (chat_id) DO UPDATE SET voice_replies = NOT chat_settings.voice_replies, updated_at = now()
RETURNING voice_replies

-- name: chatVoiceReplies
-- chatVoiceReplies is voiceReplies alone; the plan tests plan it on
-- its own.
SELECT coalesce((SELECT voice_replies FROM chat_settings WHERE chat_id = $1), false)

