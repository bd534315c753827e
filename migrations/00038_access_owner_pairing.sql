-- Owner mode (no allowlist, ACCESS not "open"): the bot serves the owner
-- who claimed it with the code of access_claim, the admins, and whom they
-- allowed; a stranger asks first (access_requests), at no model call.

-- +goose Up
-- Who the owner decided on: a user (telegram_id > 0) or a group (its chat
-- id). The owner row is the claim; revoking a user deletes its row.
CREATE TABLE access_grants (
    kind        text NOT NULL CHECK (kind IN ('user', 'group')),
    telegram_id bigint NOT NULL,
    status      text NOT NULL CHECK (status IN ('owner', 'allowed', 'blocked')),
    granted_by  bigint,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (kind, telegram_id),
    CHECK (status <> 'owner' OR kind = 'user')
);
CREATE INDEX access_grants_owners ON access_grants (telegram_id) WHERE status = 'owner';

-- The claim code while the bot has no owner: one row, kept across restarts
-- until the claim, replaced when it expires.
CREATE TABLE access_claim (
    only_row   boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    code       text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL
);

-- Wrong claim codes, by user and update (a retried update counts once):
-- a few an hour, so the code cannot be guessed.
CREATE TABLE access_claim_failures (
    telegram_user_id bigint NOT NULL,
    update_id        bigint NOT NULL,
    failed_at        timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (telegram_user_id, update_id)
);

-- A stranger's (or a group's) request to be served, as the owner sees it:
-- who asked, never what they wrote. A few wait at once, one per asker a
-- day, each until expires_at.
CREATE TABLE access_requests (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind             text NOT NULL CHECK (kind IN ('user', 'group')),
    telegram_id      bigint NOT NULL,
    chat_id          bigint NOT NULL,
    telegram_user_id bigint NOT NULL,
    first_name       text NOT NULL DEFAULT '',
    last_name        text NOT NULL DEFAULT '',
    username         text NOT NULL DEFAULT '',
    language_code    text NOT NULL DEFAULT '',
    chat_title       text NOT NULL DEFAULT '',
    status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'allowed', 'denied', 'blocked')),
    created_at       timestamptz NOT NULL DEFAULT now(),
    expires_at       timestamptz NOT NULL,
    decided_at       timestamptz,
    decided_by       bigint
);
CREATE INDEX access_requests_asker ON access_requests (kind, telegram_id, created_at);
CREATE INDEX access_requests_pending ON access_requests (expires_at) WHERE status = 'pending';

-- +goose Down
DROP TABLE access_requests;
DROP TABLE access_claim_failures;
DROP TABLE access_claim;
DROP TABLE access_grants;
