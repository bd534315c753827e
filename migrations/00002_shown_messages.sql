-- A streamed answer shows in Telegram before it is stored and recorded. The
-- messages it shows in are noted on its update as they are sent, so that a
-- run taking the update over after a crash edits them into the answer
-- instead of leaving them half-written next to a second answer.

-- +goose Up
ALTER TABLE updates ADD COLUMN shown_message_ids bigint[];

-- +goose Down
ALTER TABLE updates DROP COLUMN shown_message_ids;
