-- The bounds on reminders (memory.Store.AddReminder) count a user's and a chat's
-- waiting reminders and a chat's new ones of the last hour: indexes keep
-- those counts small lookups.

-- +goose Up
CREATE INDEX reminders_user_waiting ON reminders (telegram_user_id) WHERE status IN ('pending', 'sending');
CREATE INDEX reminders_chat_created ON reminders (chat_id, created_at);

-- +goose Down
DROP INDEX reminders_chat_created;
DROP INDEX reminders_user_waiting;
