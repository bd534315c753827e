-- The web interface's sign-in: an admin's /web gives a one-time link
-- (web_signin_links), and using it opens a session (web_sessions). Only
-- SHA-256 hashes of the link's and the session's secrets are stored, so a
-- read of the tables signs nobody in. A link is used once and expires in
-- minutes; a session expires, and can be ended from the page.

-- +goose Up
CREATE TABLE web_signin_links (
    token_hash       bytea PRIMARY KEY,
    telegram_user_id bigint NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    expires_at       timestamptz NOT NULL,
    used_at          timestamptz
);
CREATE INDEX web_signin_links_expiry ON web_signin_links (expires_at);

CREATE TABLE web_sessions (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    token_hash       bytea NOT NULL UNIQUE,
    telegram_user_id bigint NOT NULL,
    csrf_token       text NOT NULL,
    user_agent       text NOT NULL DEFAULT '' CHECK (length(user_agent) <= 300),
    created_at       timestamptz NOT NULL DEFAULT now(),
    last_seen_at     timestamptz NOT NULL DEFAULT now(),
    expires_at       timestamptz NOT NULL,
    ended_at         timestamptz
);
CREATE INDEX web_sessions_user ON web_sessions (telegram_user_id, created_at DESC);

-- +goose Down
DROP TABLE web_sessions;
DROP TABLE web_signin_links;
