-- Running it for real: usage accounting, the event log, access refusals, the
-- admin views and a read-only role for them. See docs/ADMIN.md.

-- +goose Up

-- Every model call: what it cost and how long it took. Rows outlive /new
-- (no foreign keys), so usage and budgets survive a reset.
CREATE TABLE llm_calls (
    id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    created_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
    telegram_user_id  bigint,
    chat_id           bigint,
    conversation_id   uuid,
    update_id         bigint,
    model             text NOT NULL,
    prompt_tokens     integer NOT NULL DEFAULT 0,
    completion_tokens integer NOT NULL DEFAULT 0,
    total_tokens      integer GENERATED ALWAYS AS (prompt_tokens + completion_tokens) STORED,
    latency_ms        integer NOT NULL DEFAULT 0,
    -- ok, or why the call failed after its retries: an HTTP status, timeout, network, error.
    status            text NOT NULL DEFAULT 'ok',
    error             text
);
-- "Tokens of this user today" (the daily budget) is an index-only scan.
CREATE INDEX llm_calls_user_time ON llm_calls (telegram_user_id, created_at) INCLUDE (prompt_tokens, completion_tokens);
CREATE INDEX llm_calls_time ON llm_calls (created_at);

-- The event log: one row per thing that happened. type is open-ended;
-- docs/ADMIN.md lists the types the bot writes.
CREATE TABLE events (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    occurred_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    type             text NOT NULL,
    telegram_user_id bigint,
    chat_id          bigint,
    conversation_id  uuid,
    update_id        bigint,
    payload          jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX events_type_time ON events (type, occurred_at);
CREATE INDEX events_user_type_time ON events (telegram_user_id, type, occurred_at);
CREATE INDEX events_chat_time ON events (chat_id, occurred_at);
-- An update handled twice (a retry) records these once.
CREATE UNIQUE INDEX events_once_per_update ON events (type, update_id)
    WHERE type IN ('message_received', 'reply_sent', 'access_denied', 'rate_limited');

-- Who was refused (not on the allowlist), per day in TIMEZONE: the first
-- refused update of the day gets the polite answer, the rest are counted.
CREATE TABLE access_refusals (
    telegram_user_id  bigint NOT NULL,
    chat_id           bigint NOT NULL,
    day               date NOT NULL,
    refused_update_id bigint NOT NULL,
    attempts          integer NOT NULL DEFAULT 1,
    first_at          timestamptz NOT NULL DEFAULT now(),
    last_at           timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (telegram_user_id, chat_id, day)
);

-- The zone the views show local times and days in: the session's or the
-- database's membot.timezone setting (the bot sets it from TIMEZONE when it
-- may), Europe/Moscow otherwise.
-- +goose StatementBegin
CREATE FUNCTION membot_timezone() RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT coalesce(nullif(current_setting('membot.timezone', true), ''), 'Europe/Moscow')
$$;
-- +goose StatementEnd

-- One row per stored message, with whose it is and where. telegram_user_id
-- is the person who wrote the message the row belongs to (in a group, each
-- writer; the model's rows belong to whoever they answer), else the
-- conversation's. Filter by chat_id for speed: it is indexed.
CREATE VIEW conversation_log AS
SELECT m.id AS message_id,
       m.created_at,
       (m.created_at AT TIME ZONE membot_timezone()) AS local_time,
       coalesce(e.telegram_user_id, c.telegram_user_id) AS telegram_user_id,
       u.username,
       u.first_name,
       c.chat_id,
       m.conversation_id,
       m.role,
       m.content,
       m.tool_name,
       m.update_id
FROM messages m
JOIN conversations c ON c.id = m.conversation_id
LEFT JOIN events e ON e.type = 'message_received' AND e.update_id = m.update_id
LEFT JOIN users u ON u.telegram_user_id = coalesce(e.telegram_user_id, c.telegram_user_id);

-- Per user per local day: messages received, model calls and tokens.
CREATE VIEW daily_usage AS
WITH received AS (
    SELECT telegram_user_id, (occurred_at AT TIME ZONE membot_timezone())::date AS day, count(*) AS messages
    FROM events WHERE type = 'message_received'
    GROUP BY 1, 2
), spent AS (
    SELECT telegram_user_id, (created_at AT TIME ZONE membot_timezone())::date AS day,
           count(*) AS model_calls, sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens
    FROM llm_calls
    GROUP BY 1, 2
)
SELECT telegram_user_id,
       u.username,
       day,
       coalesce(r.messages, 0) AS messages,
       coalesce(s.model_calls, 0) AS model_calls,
       coalesce(s.prompt_tokens, 0) AS prompt_tokens,
       coalesce(s.completion_tokens, 0) AS completion_tokens,
       coalesce(s.prompt_tokens + s.completion_tokens, 0) AS tokens
FROM received r
FULL JOIN spent s USING (telegram_user_id, day)
LEFT JOIN users u USING (telegram_user_id);

-- Per tool per local day: calls, failures and mean duration.
CREATE VIEW tool_usage AS
SELECT (occurred_at AT TIME ZONE membot_timezone())::date AS day,
       payload->>'tool' AS tool_name,
       count(*) AS calls,
       count(*) FILTER (WHERE payload ? 'error') AS errors,
       round(avg((payload->>'duration_ms')::numeric), 1) AS mean_ms
FROM events
WHERE type = 'tool_called'
GROUP BY 1, 2;

-- The read-only role for inspection. Roles belong to the whole server, so
-- only a user who may create roles creates it; otherwise a NOTICE says so
-- and docs/ADMIN.md has the SQL to run as a superuser.
-- +goose StatementBegin
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'membot_readonly') THEN
        IF NOT (SELECT rolsuper OR rolcreaterole FROM pg_roles WHERE rolname = current_user) THEN
            RAISE NOTICE 'role membot_readonly not created: % may not create roles (see docs/ADMIN.md)', current_user;
            RETURN;
        END IF;
        BEGIN
            CREATE ROLE membot_readonly NOLOGIN;
        EXCEPTION WHEN duplicate_object OR unique_violation THEN
            NULL; -- another database's migration created it a moment ago
        END;
    END IF;
    GRANT USAGE ON SCHEMA public TO membot_readonly;
    GRANT SELECT ON ALL TABLES IN SCHEMA public TO membot_readonly;
    GRANT EXECUTE ON FUNCTION membot_timezone() TO membot_readonly;
    -- Tables later migrations create are readable too.
    ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO membot_readonly;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'membot_readonly') THEN
        ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE SELECT ON TABLES FROM membot_readonly;
        REVOKE ALL ON ALL TABLES IN SCHEMA public FROM membot_readonly;
        REVOKE USAGE ON SCHEMA public FROM membot_readonly;
    END IF;
END
$$;
-- +goose StatementEnd
DROP VIEW tool_usage;
DROP VIEW daily_usage;
DROP VIEW conversation_log;
DROP FUNCTION membot_timezone();
DROP TABLE access_refusals;
DROP TABLE events;
DROP TABLE llm_calls;
