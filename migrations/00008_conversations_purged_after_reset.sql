-- /new answers at once however long the conversation was. In a database of
-- 10 million messages, deleting a conversation of 165,000 took /new 5 to 7
-- seconds: its rows are spread over as many pages as it has rows (50,000
-- chats write between them), and every one of those pages is read, dirtied
-- and logged. Now /new only marks the chat's conversations reset_at and
-- opens a fresh one, which is at once the current one (the newest); each
-- bot process's purger then deletes the marked conversations' messages
-- 5,000 at a time, and the conversation last, within moments.

-- +goose Up
ALTER TABLE conversations ADD COLUMN reset_at timestamptz;
CREATE INDEX conversations_to_purge ON conversations (reset_at) WHERE reset_at IS NOT NULL;

-- What /new deleted is gone from the log at once, as it was before.
CREATE OR REPLACE VIEW conversation_log AS
SELECT m.id AS message_id,
       m.created_at,
       (m.created_at AT TIME ZONE membot_timezone()) AS local_time,
       coalesce(e.telegram_user_id, c.telegram_user_id) AS telegram_user_id,
       u.username,
       u.first_name,
       c.chat_id,
       m.conversation_id,
       m.role,
       m.content,
       m.tool_name,
       m.update_id
FROM messages m
JOIN conversations c ON c.id = m.conversation_id
LEFT JOIN events e ON e.type = 'message_received' AND e.update_id = m.update_id
LEFT JOIN users u ON u.telegram_user_id = coalesce(e.telegram_user_id, c.telegram_user_id)
WHERE c.reset_at IS NULL;

-- +goose Down
CREATE OR REPLACE VIEW conversation_log AS
SELECT m.id AS message_id,
       m.created_at,
       (m.created_at AT TIME ZONE membot_timezone()) AS local_time,
       coalesce(e.telegram_user_id, c.telegram_user_id) AS telegram_user_id,
       u.username,
       u.first_name,
       c.chat_id,
       m.conversation_id,
       m.role,
       m.content,
       m.tool_name,
       m.update_id
FROM messages m
JOIN conversations c ON c.id = m.conversation_id
LEFT JOIN events e ON e.type = 'message_received' AND e.update_id = m.update_id
LEFT JOIN users u ON u.telegram_user_id = coalesce(e.telegram_user_id, c.telegram_user_id);
DELETE FROM conversations WHERE reset_at IS NOT NULL;
DROP INDEX conversations_to_purge;
ALTER TABLE conversations DROP COLUMN reset_at;
