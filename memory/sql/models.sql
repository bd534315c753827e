-- name: switchModel
-- switchModel changes the model of conversation @conversation_id (of chat @chat_id) to @to
-- (” for the default) and records the switch with reason @reason, in one
-- statement; it returns the model before. Switching to the model already
-- set changes and records nothing.
WITH old AS (
	SELECT coalesce(model, '') AS model FROM conversations WHERE id = @conversation_id FOR UPDATE
), changed AS (
	UPDATE conversations SET model = NULLIF(@to, '') WHERE id = @conversation_id AND coalesce(model, '') <> @to RETURNING id
), recorded AS (
	INSERT INTO model_switches (conversation_id, chat_id, from_model, to_model, reason)
	SELECT changed.id, @chat_id, old.model, @to, @reason FROM old, changed
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

