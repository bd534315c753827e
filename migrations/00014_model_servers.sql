-- Model servers: the model a conversation talks to (/model) with the
-- history of its switches, and whether a call's usage was estimated because
-- the server sent none.

-- +goose Up
-- NULL is the configured default (OPENAI_MODEL).
ALTER TABLE conversations ADD COLUMN model text;

-- Every change of a conversation's model, like mode_switches: from and to
-- ('' for the default), why ('command' for /model NAME, 'button').
CREATE TABLE model_switches (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    conversation_id uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    chat_id         bigint NOT NULL,
    from_model      text NOT NULL,
    to_model        text NOT NULL,
    switched_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
    reason          text NOT NULL
);
CREATE INDEX model_switches_conversation ON model_switches (conversation_id, switched_at);

-- true when the server sent no usage (a stream without it) and the tokens
-- are membot's estimate.
ALTER TABLE llm_calls ADD COLUMN usage_estimated boolean NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE llm_calls DROP COLUMN usage_estimated;
DROP TABLE model_switches;
ALTER TABLE conversations DROP COLUMN model;
