-- name: switchModel
-- switchModel changes the model of conversation $1 (of chat $4) to $2
-- (” for the default) and records the switch with reason $3, in one
-- statement; it returns the model before. Switching to the model already
-- set changes and records nothing.
WITH old AS (
	SELECT coalesce(model, '') AS model FROM conversations WHERE id = $1 FOR UPDATE
), changed AS (
	UPDATE conversations SET model = NULLIF($2, '') WHERE id = $1 AND coalesce(model, '') <> $2 RETURNING id
), recorded AS (
	INSERT INTO model_switches (conversation_id, chat_id, from_model, to_model, reason)
	SELECT changed.id, $4, old.model, $2, $3 FROM old, changed
)
SELECT model FROM old

-- name: conversationModel
WITH conv_existing AS (
	SELECT id FROM conversations WHERE chat_id = $1 AND message_thread_id IS NOT DISTINCT FROM nullif($3::bigint, 0) AND reset_at IS NULL ORDER BY created_at DESC LIMIT 1
), conv_created AS (
	INSERT INTO conversations (telegram_user_id, chat_id, message_thread_id)
	SELECT $2, $1, nullif($3::bigint, 0) WHERE NOT EXISTS (SELECT 1 FROM conv_existing)
	RETURNING id
), conv AS (
	SELECT id FROM conv_existing UNION ALL SELECT id FROM conv_created
)
		SELECT coalesce((SELECT model FROM conversations WHERE id = (SELECT id FROM conv)), '')

-- name: conversationModelByID
SELECT coalesce(model, '') FROM conversations WHERE id = $1

