-- The turn's inserts: each user and assistant row stores its
-- stems (the generated column search_vector, membot_search_vector) and
-- its full-text index keys (membot_search_keys). As SQL functions,
-- PostgreSQL parsed and planned their bodies again at every insert (it
-- tries to inline a SQL function wherever it is planned, and runs one it
-- cannot inline afresh in each statement): a fifth of the database's time
-- of a plain turn (BENCHMARKS.md). As PL/pgSQL they are compiled once per
-- connection. They return the same values: the column and the index stay
-- as they are. membot_ts_config names its configurations as regconfig
-- constants, so that it is inlined where it is used (a text cast to
-- regconfig depends on search_path, which kept it from being inlined).
-- The two that call other membot functions keep the search_path they were
-- made with: pg_restore loads rows with an empty search_path, and the
-- stems (a generated column) and the index keys are computed then; the
-- SQL versions of 00013 and 00022 failed there ("function
-- membot_plain_text(text) does not exist"), so a pg_dump of the database
-- could not be restored.

-- +goose Up
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION membot_ts_config(content text) RETURNS regconfig
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN content ~ '[А-Яа-яЁё]' THEN 'russian'::regconfig
                WHEN content ~ '[A-Za-z]' THEN 'english'::regconfig
                ELSE 'simple'::regconfig END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION membot_search_vector(content text) RETURNS tsvector
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE COST 1000 SET search_path FROM CURRENT AS $$
DECLARE
    plain text := membot_plain_text(content);
BEGIN
    RETURN to_tsvector(membot_ts_config(plain), plain);
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION membot_search_keys(conversation_id uuid, search_vector tsvector) RETURNS tsvector
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path FROM CURRENT AS $$
BEGIN
    RETURN array_to_tsvector(ARRAY(
        SELECT membot_search_prefix(conversation_id) || lexeme FROM unnest(tsvector_to_array(search_vector)) lexeme));
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION membot_search_keys(conversation_id uuid, search_vector tsvector) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT array_to_tsvector(ARRAY(
        SELECT membot_search_prefix(conversation_id) || lexeme FROM unnest(tsvector_to_array(search_vector)) lexeme))
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION membot_search_vector(content text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE COST 1000 AS $$
    SELECT to_tsvector(membot_ts_config(membot_plain_text(content)), membot_plain_text(content))
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION membot_ts_config(content text) RETURNS regconfig
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN content ~ '[А-Яа-яЁё]' THEN 'russian'
                WHEN content ~ '[A-Za-z]' THEN 'english'
                ELSE 'simple' END::regconfig
$$;
-- +goose StatementEnd
