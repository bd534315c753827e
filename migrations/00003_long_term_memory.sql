-- Long-term memory, recall, reminders and human-approved tools.
-- Everything here survives a restart and, except pending approvals, /new.

-- +goose Up

-- Facts about a user that outlive conversations (the "core memory"): saved by
-- the remember tool, shown in the system prompt of every turn, newest first.
CREATE TABLE memories (
    id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    telegram_user_id  bigint NOT NULL REFERENCES users (telegram_user_id) ON DELETE CASCADE,
    content           text NOT NULL CHECK (content <> ''),
    -- The user's message of the turn that saved it; NULL once /new deleted it.
    source_message_id bigint REFERENCES messages (id) ON DELETE SET NULL,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX memories_user_newest ON memories (telegram_user_id, updated_at DESC, id DESC);
CREATE INDEX memories_source_message ON memories (source_message_id) WHERE source_message_id IS NOT NULL;

-- search_history: full-text search over what was said. A user row begins with
-- the time stamp the model saw ("[Текущее время: ...] "); it is left out of
-- the searchable text. The index and the queries use this same function.
-- +goose StatementBegin
CREATE FUNCTION membot_plain_text(content text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT regexp_replace(content, '^\[Текущее время: [^]]*\] ', '')
$$;
-- +goose StatementEnd
CREATE INDEX messages_search ON messages
    USING gin (to_tsvector('simple'::regconfig, membot_plain_text(content)))
    WHERE role IN ('user', 'assistant');

-- Reminders set with the set_reminder tool. The scheduler claims due rows
-- (status pending -> sending, owner_id = the claiming process) and marks them
-- sent after Telegram took the message; a 'sending' row whose owner died is
-- claimed again.
CREATE TABLE reminders (
    id                  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    telegram_user_id    bigint NOT NULL,
    chat_id             bigint NOT NULL,
    text                text NOT NULL,
    due_at              timestamptz NOT NULL,
    status              text NOT NULL DEFAULT 'pending'
                        CHECK (status IN ('pending', 'sending', 'sent', 'cancelled', 'failed')),
    source_message_id   bigint REFERENCES messages (id) ON DELETE SET NULL,
    created_at          timestamptz NOT NULL DEFAULT now(),
    owner_id            integer,
    claimed_at          timestamptz,
    attempts            integer NOT NULL DEFAULT 0,
    sent_at             timestamptz,
    late                boolean NOT NULL DEFAULT false, -- sent more than a minute after due_at
    telegram_message_id bigint,
    error               text
);
CREATE INDEX reminders_due ON reminders (due_at) WHERE status IN ('pending', 'sending');
CREATE INDEX reminders_chat_pending ON reminders (chat_id, due_at) WHERE status = 'pending';
CREATE INDEX reminders_source_message ON reminders (source_message_id) WHERE source_message_id IS NOT NULL;

-- Tool calls that wait for a person's decision (the pending_approvals
-- design). request_id is the model's tool call id; details holds the call's
-- arguments. The turn resumes when the row is decided.
CREATE TABLE pending_approvals (
    id                   bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    request_id           text NOT NULL,
    request_type         text NOT NULL DEFAULT 'tool',
    subject              text NOT NULL,         -- the tool's name
    details              jsonb NOT NULL,        -- the call's arguments
    conversation_id      uuid REFERENCES conversations (id) ON DELETE SET NULL,
    -- The assistant row whose tool_calls holds the request.
    assistant_message_id bigint REFERENCES messages (id) ON DELETE SET NULL,
    telegram_user_id     bigint NOT NULL,       -- who asked; they (or an admin) decide
    chat_id              bigint NOT NULL,
    update_id            bigint,                -- the Telegram update whose turn asked
    telegram_message_id  bigint,                -- the message with the buttons
    status               text NOT NULL DEFAULT 'pending'
                         CHECK (status IN ('pending', 'approved', 'rejected', 'cancelled')),
    created_at           timestamptz NOT NULL DEFAULT now(),
    decision_at          timestamptz,
    decided_by           bigint,                -- the Telegram user who pressed the button
    decision_update_id   bigint,                -- the callback_query update that decided it
    decision_reason      text
);
CREATE INDEX pending_approvals_request ON pending_approvals (request_id);
CREATE INDEX pending_approvals_chat_pending ON pending_approvals (chat_id, id) WHERE status = 'pending';
CREATE INDEX pending_approvals_update ON pending_approvals (update_id);
CREATE INDEX pending_approvals_assistant_message ON pending_approvals (assistant_message_id);
CREATE INDEX pending_approvals_conversation ON pending_approvals (conversation_id);

-- +goose Down
DROP TABLE pending_approvals;
DROP TABLE reminders;
DROP INDEX messages_search;
DROP FUNCTION membot_plain_text(text);
DROP TABLE memories;
