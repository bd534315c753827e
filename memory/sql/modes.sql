-- name: switchMode
-- switchMode changes the mode of conversation $1 (of chat $4) to $2 and
-- records the switch with reason $3, in one statement; it returns the mode
-- before.
-- Switching to the mode already set changes and records nothing.
WITH old AS (
	SELECT mode FROM conversations WHERE id = $1 FOR UPDATE
), changed AS (
	UPDATE conversations SET mode = $2 WHERE id = $1 AND mode <> $2 RETURNING id
), recorded AS (
	INSERT INTO mode_switches (conversation_id, chat_id, from_mode, to_mode, reason)
	SELECT changed.id, $4, old.mode, $2, $3 FROM old, changed
)
SELECT mode FROM old

-- name: conversationMode
WITH conv_existing AS (
	SELECT id FROM conversations WHERE chat_id = $1 AND message_thread_id IS NOT DISTINCT FROM nullif($4::bigint, 0) AND reset_at IS NULL ORDER BY created_at DESC LIMIT 1
), conv_created AS (
	INSERT INTO conversations (telegram_user_id, chat_id, message_thread_id)
	SELECT $2, $1, nullif($4::bigint, 0) WHERE NOT EXISTS (SELECT 1 FROM conv_existing)
	RETURNING id
), conv AS (
	SELECT id FROM conv_existing UNION ALL SELECT id FROM conv_created
)
		SELECT coalesce((SELECT mode FROM conversations WHERE id = (SELECT id FROM conv)), $3)

-- name: conversationModeByID
SELECT mode FROM conversations WHERE id = $1

