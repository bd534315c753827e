-- The web interface's overview lists the updates that failed lately: the
-- index holds only those, so the page reads a few rows instead of the
-- whole inbox. Built without locking intake out.

-- +goose NO TRANSACTION
-- +goose Up
CREATE INDEX CONCURRENTLY IF NOT EXISTS updates_failed ON updates (received_at) WHERE error IS NOT NULL;

-- +goose Down
DROP INDEX CONCURRENTLY IF EXISTS updates_failed;
