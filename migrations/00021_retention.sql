-- RETENTION_DAYS: the purger deletes finished updates, events and llm_calls
-- older than that, a batch at a time; these indexes find them.

-- +goose Up
CREATE INDEX updates_done_received ON updates (received_at) WHERE state = 'done';
CREATE INDEX events_time ON events (occurred_at);

-- +goose Down
DROP INDEX events_time;
DROP INDEX updates_done_received;
