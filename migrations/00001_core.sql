-- The core schema. Table and column names are a public interface: admins
-- query them with SQL (see README.md). Rename nothing without a migration.

-- +goose Up
CREATE TABLE users (
    telegram_user_id bigint PRIMARY KEY,
    username         text,
    first_name       text,
    last_name        text,
    language_code    text,
    created_at       timestamptz NOT NULL DEFAULT now(),
    last_seen_at     timestamptz NOT NULL DEFAULT now()
);

-- The newest conversation of a chat is its current one.
CREATE TABLE conversations (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    telegram_user_id bigint NOT NULL,
    chat_id          bigint NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX conversations_chat_newest ON conversations (chat_id, created_at DESC);

CREATE TABLE messages (
    id                  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    conversation_id     uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    role                text NOT NULL CHECK (role IN ('user', 'assistant', 'tool', 'system')),
    content             text NOT NULL DEFAULT '',
    tool_calls          jsonb,
    tool_call_id        text,
    tool_name           text,
    telegram_message_id bigint,
    -- The Telegram update this row answers; it lets a turn that was cut short
    -- by a crash resume without storing the user's message twice.
    update_id           bigint,
    metadata            jsonb NOT NULL DEFAULT '{}',
    created_at          timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX messages_conversation_id ON messages (conversation_id, id);
CREATE UNIQUE INDEX messages_one_user_row_per_update ON messages (update_id) WHERE role = 'user';
CREATE INDEX messages_update_id ON messages (update_id) WHERE update_id IS NOT NULL;

-- The durable inbox: every Telegram update is stored here before Telegram is
-- told it was received, and handled from here.
CREATE TABLE updates (
    update_id   bigint PRIMARY KEY,
    chat_id     bigint NOT NULL,
    payload     jsonb NOT NULL,
    state       text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'processing', 'done')),
    owner_id    integer,
    attempts    integer NOT NULL DEFAULT 0,
    error       text,
    received_at timestamptz NOT NULL DEFAULT now(),
    claimed_at  timestamptz,
    done_at     timestamptz
);
-- Keeps "the oldest unfinished update of a chat" an index scan however many
-- finished updates pile up.
CREATE INDEX updates_unfinished ON updates (chat_id, update_id) WHERE state <> 'done';

-- A bot process holds the advisory lock (1835363682, owner_id) for as long as
-- it lives. An update claimed by a process whose lock is gone may be claimed
-- again: its owner crashed.
-- +goose StatementBegin
CREATE FUNCTION membot_owner_alive(owner integer) RETURNS boolean
LANGUAGE sql STABLE AS $$
    SELECT EXISTS (
        SELECT 1 FROM pg_locks
        WHERE locktype = 'advisory' AND granted
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND classid = 1835363682::oid AND objid = owner::oid AND objsubid = 2)
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION membot_owner_alive(integer);
DROP TABLE updates;
DROP TABLE messages;
DROP TABLE conversations;
DROP TABLE users;
