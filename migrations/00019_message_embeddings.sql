-- Semantic recall: message embeddings in a pgvector column, when
-- the server has pgvector. The bot works without it (full-text recall
-- alone), so nothing here may fail on a server that lacks the extension or
-- a role that may not create it: membot_enable_vectors() creates the
-- extension and the table only when it can, and says whether they exist.
-- It runs here and again at start-up when EMBEDDINGS_MODEL is set, so
-- pgvector installed after the migration is picked up by a restart.

-- +goose Up

-- Deleting messages deletes their embeddings (once per statement, as the
-- trigger of migration 00006 does for the other references to messages).
-- +goose StatementBegin
CREATE FUNCTION membot_forget_deleted_embeddings() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    lo bigint;
    hi bigint;
BEGIN
    SELECT min(id), max(id) INTO lo, hi FROM gone;
    DELETE FROM message_embeddings WHERE message_id BETWEEN lo AND hi AND message_id IN (SELECT id FROM gone);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION membot_enable_vectors() RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
    IF to_regclass('message_embeddings') IS NOT NULL THEN
        RETURN true;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') THEN
        IF NOT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') THEN
            RAISE NOTICE 'pgvector is not installed on this server: recall uses full-text search alone';
            RETURN false;
        END IF;
        BEGIN
            CREATE EXTENSION vector;
        EXCEPTION WHEN insufficient_privilege THEN
            RAISE NOTICE 'pgvector is installed but % may not create the extension (a superuser can: CREATE EXTENSION vector)', current_user;
            RETURN false;
        END;
    END IF;
    -- One row per embedded user or assistant row. The vector has no fixed
    -- dimension so any embeddings model fits; a search compares only rows of
    -- the model it asks with. No foreign keys: a message's deletion removes
    -- its row through the trigger below, once per statement.
    CREATE TABLE message_embeddings (
        message_id      bigint PRIMARY KEY,
        conversation_id uuid NOT NULL,
        model           text NOT NULL,
        embedding       vector NOT NULL,
        created_at      timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX message_embeddings_conversation ON message_embeddings (conversation_id, model, message_id);
    CREATE TRIGGER messages_deleted_embeddings AFTER DELETE ON messages
        REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION membot_forget_deleted_embeddings();
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'membot_readonly') THEN
        GRANT SELECT ON message_embeddings TO membot_readonly;
    END IF;
    RETURN true;
END
$$;
-- +goose StatementEnd

SELECT membot_enable_vectors();

-- +goose Down
DROP TRIGGER IF EXISTS messages_deleted_embeddings ON messages;
DROP TABLE IF EXISTS message_embeddings;
DROP FUNCTION membot_enable_vectors();
DROP FUNCTION membot_forget_deleted_embeddings();
