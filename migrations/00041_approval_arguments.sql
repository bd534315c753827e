-- A call waiting for approval keeps its arguments as the exact text that
-- is shown to the person deciding and run once approved (their canonical
-- form: keys in the model's order, each once). details, jsonb, reorders
-- keys and keeps one of two equal ones, so it stays for queries only.
-- Rows asked before have none: they are shown and run from details.

-- +goose Up
ALTER TABLE pending_approvals ADD COLUMN arguments text;

-- +goose Down
ALTER TABLE pending_approvals DROP COLUMN arguments;
