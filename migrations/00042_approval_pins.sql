-- A call of an MCP server's tool waiting for approval is pinned to what
-- would run it: {"server": its name in MCP_SERVERS, "identity": the name
-- and version it announced at initialize, "tool": the tool's name there}.
-- At the press the call runs only if its name still leads there. NULL for
-- the built-in tools.

-- +goose Up
ALTER TABLE pending_approvals ADD COLUMN pin jsonb;

-- +goose Down
ALTER TABLE pending_approvals DROP COLUMN pin;
