-- What is kept of a fact the user forgets (/forget, the forget tool): a
-- tombstone, so that the fact said again is known as it. It holds no text
-- of the fact, only a keyed hash of each of its key words (terms) and how
-- many of them a text must hold to state it again (need); see
-- memory/forgotten.go. A forget marks forgotten every row of the user's
-- private chat that holds one; the memorizer marks a later exchange that
-- holds one forgotten and reads no fact from it; the prompt says how many
-- there are, never what. The rows go with the user (membot admin forget),
-- as every table with a telegram_user_id does.

-- +goose Up
CREATE TABLE forgotten_facts (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    telegram_user_id bigint NOT NULL,
    terms text[] NOT NULL CHECK (cardinality(terms) BETWEEN 1 AND 16),
    need integer NOT NULL CHECK (need BETWEEN 1 AND cardinality(terms)),
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX forgotten_facts_user ON forgotten_facts (telegram_user_id, id);

-- +goose Down
DROP TABLE forgotten_facts;
