-- /voice: whether a chat also gets its answers spoken, as a
-- voice message after the text. Off unless the chat turned it on; a chat's
-- row outlives /new.

-- +goose Up
CREATE TABLE chat_settings (
    chat_id       bigint PRIMARY KEY,
    voice_replies boolean NOT NULL DEFAULT false,
    updated_at    timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE chat_settings;
