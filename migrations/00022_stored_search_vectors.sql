-- search_history at scale: each user and assistant row keeps
-- its stemmed vector in a column, so a search ranks its matches by reading
-- the column instead of parsing each message again (about 50 µs a row:
-- a common word in a conversation of 100,000 rows matches thousands), and
-- the full-text index is built from the column (parsed once per insert,
-- where the index of 00013 parsed every row it read or rebuilt).
--
-- Upgrading rewrites the messages table once (the column is generated)
-- and builds the index again: about 1 min per million messages on a
-- 2-core machine (BENCHMARKS.md). A large bot can run `membot migrate`
-- before starting the new version.

-- +goose Up
DROP INDEX messages_search;

ALTER TABLE messages ADD COLUMN search_vector tsvector
    GENERATED ALWAYS AS (CASE WHEN role IN ('user', 'assistant') THEN membot_search_vector(content) END) STORED;

-- The index keys are the stored stems written after the conversation's
-- prefix (see membot_search_prefix in 00013): a search reads only its own
-- conversation's entries.
DROP FUNCTION membot_search_keys(uuid, text);
-- +goose StatementBegin
CREATE FUNCTION membot_search_keys(conversation_id uuid, search_vector tsvector) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT array_to_tsvector(ARRAY(
        SELECT membot_search_prefix(conversation_id) || lexeme FROM unnest(tsvector_to_array(search_vector)) lexeme))
$$;
-- +goose StatementEnd

-- GIN builds much faster with more memory than the default 64 MB.
SET LOCAL maintenance_work_mem = '256MB';
CREATE INDEX messages_search ON messages USING gin (membot_search_keys(conversation_id, search_vector))
    WHERE role IN ('user', 'assistant');

-- +goose Down
DROP INDEX messages_search;
DROP FUNCTION membot_search_keys(uuid, tsvector);
ALTER TABLE messages DROP COLUMN search_vector;
-- +goose StatementBegin
CREATE FUNCTION membot_search_keys(conversation_id uuid, content text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE COST 1000 AS $$
    SELECT coalesce(array_to_tsvector(array_agg(membot_search_prefix(conversation_id) || lexeme)), ''::tsvector)
    FROM unnest(membot_search_vector(content))
$$;
-- +goose StatementEnd
CREATE INDEX messages_search ON messages USING gin (membot_search_keys(conversation_id, content))
    WHERE role IN ('user', 'assistant');
