-- conversation_log shows when a message was written (messages.written_at:
-- the Telegram date of a user row that reached the bot late), as every
-- other place that shows a message does: local_time is that time in the
-- bot's zone, and written_at, added at the end, the same instant.
-- created_at stays when the row was stored.

-- +goose Up
CREATE OR REPLACE VIEW conversation_log AS
SELECT m.id AS message_id,
       m.created_at,
       (coalesce(m.written_at, m.created_at) AT TIME ZONE membot_timezone()) AS local_time,
       coalesce(e.telegram_user_id, c.telegram_user_id) AS telegram_user_id,
       u.username,
       u.first_name,
       c.chat_id,
       m.conversation_id,
       m.role,
       m.content,
       m.tool_name,
       m.update_id,
       coalesce(m.written_at, m.created_at) AS written_at
FROM messages m
JOIN conversations c ON c.id = m.conversation_id
LEFT JOIN events e ON e.type = 'message_received' AND e.update_id = m.update_id
LEFT JOIN users u ON u.telegram_user_id = coalesce(e.telegram_user_id, c.telegram_user_id)
WHERE c.reset_at IS NULL;

-- +goose Down
DROP VIEW conversation_log;
CREATE VIEW conversation_log AS
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
