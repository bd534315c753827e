-- Topics in private chats (Bot API 9.3): when the bot has topics enabled
-- (@BotFather), each topic of a private chat is a conversation of its own.
-- conversations.message_thread_id is the topic's id (Telegram's
-- message_thread_id), NULL outside topics; a chat's current conversation
-- is then the newest one of the topic. Reminders go back to the topic they
-- were set in.

-- +goose Up
ALTER TABLE conversations ADD COLUMN message_thread_id bigint;
CREATE INDEX conversations_thread_newest ON conversations (chat_id, message_thread_id, created_at DESC)
    WHERE message_thread_id IS NOT NULL;
ALTER TABLE reminders ADD COLUMN message_thread_id bigint;

-- +goose Down
ALTER TABLE reminders DROP COLUMN message_thread_id;
DROP INDEX conversations_thread_newest;
ALTER TABLE conversations DROP COLUMN message_thread_id;
