-- Conversation controls: the assistant's mode per conversation with the
-- history of its switches, and the log of /undo and /retry, which take rows
-- back out of a conversation.

-- +goose Up
-- The mode (persona) the conversation is in: its system prompt. /new starts
-- the fresh conversation in 'default'.
ALTER TABLE conversations ADD COLUMN mode text NOT NULL DEFAULT 'default';

-- Every change of a conversation's mode: when, from what, to what and why
-- ('command' for /mode NAME, 'button' for the inline button, 'new' for the
-- reset by /new). chat_id is the conversation's chat, for easy queries.
CREATE TABLE mode_switches (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    conversation_id uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    chat_id         bigint NOT NULL,
    from_mode       text NOT NULL,
    to_mode         text NOT NULL,
    switched_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
    reason          text NOT NULL
);
CREATE INDEX mode_switches_conversation ON mode_switches (conversation_id, switched_at);

-- Every /undo and /retry: which rows it removed (the messages from
-- first_removed_id on, as they were). update_id is the command's Telegram
-- update, so that a command handled again after a crash removes nothing more.
CREATE TABLE conversation_rollbacks (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    conversation_id  uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    chat_id          bigint NOT NULL,
    command          text NOT NULL CHECK (command IN ('undo', 'retry')),
    update_id        bigint UNIQUE,
    first_removed_id bigint,
    removed          integer NOT NULL,
    removed_by_role  jsonb NOT NULL DEFAULT '{}',
    created_at       timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX conversation_rollbacks_conversation ON conversation_rollbacks (conversation_id, id);

-- +goose Down
DROP TABLE conversation_rollbacks;
DROP TABLE mode_switches;
ALTER TABLE conversations DROP COLUMN mode;
