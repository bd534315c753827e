-- A picture is reserved before it is drawn and kept before it is sent.
-- Its llm_calls row is written first, with its tokens, in the statement
-- that checks the user's day (status 'drawing'), under a lock on the user
-- taken in the same transaction, so that pictures asked for at once in
-- several chats cannot all pass the check; a picture not drawn gives its
-- tokens back. The picture the image server returned is kept here until
-- Telegram has it: an update handled again after a crash sends the kept
-- picture instead of drawing it again. Sent, its row is deleted (the
-- message row names the photo by its Telegram file id); one never sent is
-- deleted a day later.

-- +goose Up
CREATE TABLE drawn_pictures (
    llm_call_id    bigint PRIMARY KEY REFERENCES llm_calls (id) ON DELETE CASCADE,
    chat_id        bigint NOT NULL,
    update_id      bigint NOT NULL,
    prompt         text NOT NULL,
    data           bytea NOT NULL,
    mime_type      text NOT NULL DEFAULT '',
    revised_prompt text NOT NULL DEFAULT '',
    created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX drawn_pictures_update ON drawn_pictures (chat_id, update_id);

-- +goose Down
DROP TABLE drawn_pictures;
