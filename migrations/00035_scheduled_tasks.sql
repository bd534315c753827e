-- Scheduled tasks are reminders with a schedule: one table, one scheduler.
-- kind 'reminder' sends its text; kind 'task' runs its text as a turn of
-- the model in the chat, as if the user had sent it. schedule (a cron
-- expression of five fields, read in time_zone) makes a row recur: once
-- sent or run, its due_at moves to the next occurrence after now, so runs
-- missed while the bot was down come to one, late. A paused row waits
-- until resumed. runs counts the runs, last_run_at is the newest.
--
-- A task's run enters the inbox as an update of its own: task_id names the
-- row, and only the scheduler writes it (an update from Telegram never has
-- one). Its update_id is negative, from scheduled_runs (rising from the
-- lowest bigint), so it never takes an id Telegram will use, and runs sort
-- among themselves in the order they were queued.

-- +goose Up
ALTER TABLE reminders ADD COLUMN kind text NOT NULL DEFAULT 'reminder' CHECK (kind IN ('reminder', 'task'));
ALTER TABLE reminders ADD COLUMN schedule text;
ALTER TABLE reminders ADD COLUMN time_zone text;
ALTER TABLE reminders ADD COLUMN runs integer NOT NULL DEFAULT 0;
ALTER TABLE reminders ADD COLUMN last_run_at timestamptz;
ALTER TABLE reminders DROP CONSTRAINT reminders_status_check;
ALTER TABLE reminders ADD CONSTRAINT reminders_status_check
    CHECK (status IN ('pending', 'sending', 'paused', 'sent', 'cancelled', 'failed'));
CREATE INDEX reminders_chat_scheduled ON reminders (chat_id, id) WHERE schedule IS NOT NULL AND status IN ('pending', 'sending', 'paused');

ALTER TABLE updates ADD COLUMN task_id bigint;
CREATE SEQUENCE scheduled_runs MINVALUE -9223372036854775807 MAXVALUE -1 START -9223372036854775807;

-- +goose Down
DROP SEQUENCE scheduled_runs;
ALTER TABLE updates DROP COLUMN task_id;
DROP INDEX reminders_chat_scheduled;
UPDATE reminders SET status = 'cancelled' WHERE schedule IS NOT NULL AND status IN ('pending', 'sending', 'paused');
ALTER TABLE reminders DROP CONSTRAINT reminders_status_check;
ALTER TABLE reminders ADD CONSTRAINT reminders_status_check
    CHECK (status IN ('pending', 'sending', 'sent', 'cancelled', 'failed'));
ALTER TABLE reminders DROP COLUMN last_run_at;
ALTER TABLE reminders DROP COLUMN runs;
ALTER TABLE reminders DROP COLUMN time_zone;
ALTER TABLE reminders DROP COLUMN schedule;
ALTER TABLE reminders DROP COLUMN kind;
