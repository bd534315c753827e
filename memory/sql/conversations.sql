-- A chat's current conversation (conv_existing, or the subquery on
-- conversations in other files' statements) is its newest one in the topic
-- given (message_thread_id, NULL outside topics: the topic parameter is 0
-- there) that /new has not reset (reset ones wait for the purger). When the
-- chat has none, it is created (conv_created): one chat is handled by one
-- worker at a time, so two workers never race to create it.

-- name: currentConversation
-- currentConversation is chat $1's current conversation in topic $3,
-- created for user $2 when there is none.
WITH conv_existing AS (
	SELECT id FROM conversations WHERE chat_id = $1 AND message_thread_id IS NOT DISTINCT FROM nullif($3::bigint, 0) AND reset_at IS NULL ORDER BY created_at DESC LIMIT 1
), conv_created AS (
	INSERT INTO conversations (telegram_user_id, chat_id, message_thread_id)
	SELECT $2, $1, nullif($3::bigint, 0) WHERE NOT EXISTS (SELECT 1 FROM conv_existing)
	RETURNING id
), conv AS (
	SELECT id FROM conv_existing UNION ALL SELECT id FROM conv_created
) SELECT id::text FROM conv

-- name: reset
-- reset marks the chat's conversations for the purger (PurgeReset
-- deletes them and their messages), opens a fresh one in the default mode,
-- and logs conversation_reset with what is deleted. When the conversation
-- it replaces was in another mode, the return to the default is recorded
-- as a mode switch. The model (/model) is carried over.
WITH old AS (
	SELECT mode, model FROM conversations WHERE chat_id = @chat_id AND message_thread_id IS NOT DISTINCT FROM nullif(@message_thread_id::bigint, 0) AND reset_at IS NULL ORDER BY created_at DESC LIMIT 1
), gone AS (
	UPDATE conversations SET reset_at = now() WHERE chat_id = @chat_id AND message_thread_id IS NOT DISTINCT FROM nullif(@message_thread_id::bigint, 0) AND reset_at IS NULL RETURNING id
), fresh AS (
	INSERT INTO conversations (telegram_user_id, chat_id, model, message_thread_id)
	VALUES (@telegram_user_id, @chat_id, (SELECT model FROM old), nullif(@message_thread_id::bigint, 0)) RETURNING id
), logged AS (
	INSERT INTO events (type, telegram_user_id, chat_id, conversation_id, payload)
	SELECT 'conversation_reset', @telegram_user_id, @chat_id, fresh.id, jsonb_build_object(
		'deleted_conversations', (SELECT count(*) FROM gone),
		'deleted_messages', (SELECT count(*) FROM messages WHERE conversation_id IN (SELECT id FROM gone)))
	FROM fresh
), recorded AS (
	INSERT INTO mode_switches (conversation_id, chat_id, from_mode, to_mode, reason)
	SELECT fresh.id, @chat_id, old.mode, @default_mode, @reason FROM fresh, old WHERE old.mode <> @default_mode
)
SELECT id::text FROM fresh

