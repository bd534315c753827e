-- name: switchMode
-- switchMode changes the mode of conversation @conversation_id (of chat @chat_id) to @to and
-- records the switch with reason @reason, in one statement; it returns the mode
-- before.
-- Switching to the mode already set changes and records nothing.
WITH old AS (
	SELECT mode FROM conversations WHERE id = @conversation_id FOR UPDATE
), changed AS (
	UPDATE conversations SET mode = @to WHERE id = @conversation_id AND mode <> @to RETURNING id
), recorded AS (
	INSERT INTO mode_switches (conversation_id, chat_id, from_mode, to_mode, reason)
	SELECT changed.id, @chat_id, old.mode, @to, @reason FROM old, changed
)
SELECT mode FROM old

-- name: conversationMode
WITH conv_existing AS (
	SELECT id FROM conversations WHERE chat_id = @chat_id AND message_thread_id IS NOT DISTINCT FROM nullif(@message_thread_id::bigint, 0) AND reset_at IS NULL ORDER BY created_at DESC LIMIT 1
), conv_created AS (
	INSERT INTO conversations (telegram_user_id, chat_id, message_thread_id)
	SELECT @telegram_user_id, @chat_id, nullif(@message_thread_id::bigint, 0) WHERE NOT EXISTS (SELECT 1 FROM conv_existing)
	RETURNING id
), conv AS (
	SELECT id FROM conv_existing UNION ALL SELECT id FROM conv_created
)
		SELECT coalesce((SELECT mode FROM conversations WHERE id = (SELECT id FROM conv)), @default_mode)

-- name: conversationModeByID
SELECT mode FROM conversations WHERE id = $1

