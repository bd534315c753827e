package memory

import (
	"context"
	"fmt"
)

// currentConversationWhere picks chat $1's current conversation in the
// topic of parameter thread: its newest one that /new has not reset (reset
// ones wait for the purger).
func currentConversationWhere(thread string) string {
	return `chat_id = $1 AND ` + sameThread(thread) + ` AND reset_at IS NULL ORDER BY created_at DESC LIMIT 1`
}

// currentConversationID is the chat $1's current conversation in the topic
// of parameter thread, or NULL.
func currentConversationID(thread string) string {
	return `(SELECT id FROM conversations WHERE ` + currentConversationWhere(thread) + `)`
}

// currentConversationCTE defines `conv`: the current conversation of chat
// $1 in the topic of parameter thread, created for user $2 when the chat
// has none. One chat is handled by one worker at a time, so two workers
// never race to create it.
func currentConversationCTE(thread string) string {
	return `conv_existing AS (
	SELECT id FROM conversations WHERE ` + currentConversationWhere(thread) + `
), conv_created AS (
	INSERT INTO conversations (telegram_user_id, chat_id, message_thread_id)
	SELECT $2, $1, ` + newThread(thread) + ` WHERE NOT EXISTS (SELECT 1 FROM conv_existing)
	RETURNING id
), conv AS (
	SELECT id FROM conv_existing UNION ALL SELECT id FROM conv_created
)`
}

// currentConversationSQL is chat $1's current conversation in topic $3,
// created for user $2 when there is none.
var currentConversationSQL = `WITH ` + currentConversationCTE("$3") + ` SELECT id::text FROM conv`

// CurrentConversation returns the id of the chat's current conversation,
// creating one when the chat has none.
func (s *Store) CurrentConversation(ctx context.Context, chat Chat, userID int64) (string, error) {
	var id string
	if err := s.pool.QueryRow(ctx, currentConversationSQL, chat.ID, userID, chat.Thread).Scan(&id); err != nil {
		return "", fmt.Errorf("current conversation: %w", translate(err))
	}
	return id, nil
}

// resetSQL marks the chat's conversations for the purger (PurgeReset
// deletes them and their messages), opens a fresh one in the default mode,
// and logs conversation_reset with what is deleted. When the conversation
// it replaces was in another mode, the return to the default is recorded
// as a mode switch. The model (/model) is carried over. $5 is the topic.
var resetSQL = `WITH old AS (
	SELECT mode, model FROM conversations WHERE ` + currentConversationWhere("$5") + `
), gone AS (
	UPDATE conversations SET reset_at = now() WHERE chat_id = $1 AND ` + sameThread("$5") + ` AND reset_at IS NULL RETURNING id
), fresh AS (
	INSERT INTO conversations (telegram_user_id, chat_id, model, message_thread_id)
	VALUES ($2, $1, (SELECT model FROM old), ` + newThread("$5") + `) RETURNING id
), logged AS (
	INSERT INTO events (type, telegram_user_id, chat_id, conversation_id, payload)
	SELECT 'conversation_reset', $2, $1, fresh.id, jsonb_build_object(
		'deleted_conversations', (SELECT count(*) FROM gone),
		'deleted_messages', (SELECT count(*) FROM messages WHERE conversation_id IN (SELECT id FROM gone)))
	FROM fresh
), recorded AS (
	INSERT INTO mode_switches (conversation_id, chat_id, from_mode, to_mode, reason)
	SELECT fresh.id, $1, old.mode, $3, $4 FROM fresh, old WHERE old.mode <> $3
)
SELECT id::text FROM fresh`

// Reset opens a fresh conversation for the chat and leaves the ones before
// it, with their messages, to PurgeReset, in one statement; it returns the
// new conversation's id. The fresh conversation is the current one at
// once: nothing of the old ones reaches the model again.
func (s *Store) Reset(ctx context.Context, chat Chat, userID int64) (string, error) {
	var id string
	if err := s.pool.QueryRow(ctx, resetSQL, chat.ID, userID, DefaultMode, SwitchByNew, chat.Thread).Scan(&id); err != nil {
		return "", fmt.Errorf("reset conversation: %w", translate(err))
	}
	return id, nil
}
