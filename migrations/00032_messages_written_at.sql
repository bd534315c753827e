-- When a message was written: for a user row, the date of the Telegram
-- message (a delayed, retried or imported message is stored later than it
-- was written, and its stamp already says when it was written). NULL for
-- the rows stored before and for the bot's own rows, written when stored:
-- every reader takes coalesce(written_at, created_at). No backfill: on a
-- large table it would rewrite every row under a lock to copy what
-- created_at already says.

-- +goose Up
ALTER TABLE messages ADD COLUMN written_at timestamptz;

-- +goose Down
ALTER TABLE messages DROP COLUMN written_at;
