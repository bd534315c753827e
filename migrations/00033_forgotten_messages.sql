-- A fact the user forgets (/forget, the forget tool) takes the turn it was
-- read from with it: the user row it came from and the rows that answered
-- it are marked forgotten. Forgotten rows stay for the record (an admin
-- still sees them, `membot admin forget` deletes them with the user), but
-- nothing brings them back to a model: not the window, auto-recall,
-- search_history, /retry, the fact extraction or the summaries.
-- The default is a constant, so adding the column rewrites no rows.

-- +goose Up
ALTER TABLE messages ADD COLUMN forgotten boolean NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE messages DROP COLUMN forgotten;
