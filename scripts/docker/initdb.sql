-- Run once by the postgres image on an empty data volume (docker-compose.yml
-- mounts it into /docker-entrypoint-initdb.d), as the superuser. The bot
-- gets a role of its own that is no superuser: it owns its database and
-- nothing else, so a bug or a stolen DATABASE_URL reaches membot's rows only.
CREATE ROLE membot LOGIN PASSWORD 'membot' NOSUPERUSER NOCREATEDB NOCREATEROLE;
CREATE DATABASE membot OWNER membot;
-- For inspection (docs/ADMIN.md): the migrations grant it SELECT.
CREATE ROLE membot_readonly NOLOGIN;

\connect membot
-- Only the bot may take advisory locks here: they say which bot process is
-- alive (migration 00016 does the same when it runs as a superuser).
DO $$
DECLARE
    fn regprocedure;
BEGIN
    FOR fn IN SELECT p.oid::regprocedure FROM pg_proc p
        WHERE p.pronamespace = 'pg_catalog'::regnamespace AND p.proname ~ '^pg_(try_)?advisory_(xact_)?lock(_shared)?$'
    LOOP
        EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', fn);
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO membot', fn);
    END LOOP;
END
$$;

-- pgvector for semantic recall (EMBEDDINGS_MODEL): creating the extension
-- takes a superuser, which the bot is not; migration 00019 then adds its
-- table. The image (pgvector/pgvector) ships the extension.
CREATE EXTENSION IF NOT EXISTS vector;
