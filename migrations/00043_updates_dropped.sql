-- An update the bot does not serve (an inline query, a poll, a channel
-- post, a kind newer than the bot, ...) is stored, confirmed to Telegram
-- and done at once, never retried: dropped says so, with its kind and why
-- ("inline_query: a kind of update the bot does not serve"). NULL for an
-- update the bot served. crashes (00031) also counts the panics recovered
-- while the update was handled: at GIVE_UP_AFTER_CRASHES it is given up
-- (quarantined), whoever else was at work.

-- +goose Up
ALTER TABLE updates ADD COLUMN dropped text;

-- +goose Down
ALTER TABLE updates DROP COLUMN dropped;
