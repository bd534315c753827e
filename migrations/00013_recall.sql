-- Memory that remembers: stemmed full-text search, facts that
-- are extracted automatically and superseded rather than overwritten,
-- summaries of what left the model's window, and the cursors of the
-- background jobs that do this work after a turn.

-- +goose Up

-- search_history and auto-recall: each message is indexed with the text
-- search configuration of its own language, so words are stemmed ("cats"
-- finds "cat", "поездки" finds "поездку") and stop words ("the", "what",
-- "и") are left out. Cyrillic -> 'russian' (whose configuration stems the
-- Latin words of a mixed message as English), Latin -> 'english', anything
-- else 'simple'. The index and the queries use these same functions.
-- +goose StatementBegin
CREATE FUNCTION membot_ts_config(content text) RETURNS regconfig
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN content ~ '[А-Яа-яЁё]' THEN 'russian'
                WHEN content ~ '[A-Za-z]' THEN 'english'
                ELSE 'simple' END::regconfig
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION membot_search_vector(content text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE COST 1000 AS $$
    SELECT to_tsvector(membot_ts_config(membot_plain_text(content)), membot_plain_text(content))
$$;
-- +goose StatementEnd

-- membot_search_query turns words into a query matching any of their stems,
-- each written after prefix (read as they are: tsquery's input, not a
-- parser); stop words give nothing. The stems are compared
-- as 'simple' lexemes, so a query in one language finds a message indexed
-- with another's configuration when their stems agree. No word beginnings
-- (:*): stemming finds the forms of a word, and a beginning expands over
-- every lexeme of the index that starts with it.
-- +goose StatementBegin
CREATE FUNCTION membot_search_query(words text, prefix text DEFAULT '') RETURNS tsquery
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(string_agg(quote_literal(prefix || lexeme), ' | ')::tsquery, ''::tsquery)
    FROM unnest(to_tsvector(membot_ts_config(words), words))
$$;
-- +goose StatementEnd

-- The index keys are the stems written after the first 8 characters of
-- the conversation's id: a search, which is always within one
-- conversation, reads only that conversation's entries, whatever the size
-- of the table (with plain stems, a frequent one made every search read
-- its entries for all conversations: 54 ms at 2M messages, BENCHMARKS.md).
-- The prefix is a filter, not the key of correctness: the queries also
-- compare conversation_id (as text, so that the planner never prefers the
-- conversation's btree and this function on each of its rows: 0.2 ms a
-- row). COST says how dear the functions are.
-- +goose StatementBegin
CREATE FUNCTION membot_search_prefix(conversation_id uuid) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT left(conversation_id::text, 8) || '/'
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION membot_search_keys(conversation_id uuid, content text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE COST 1000 AS $$
    SELECT coalesce(array_to_tsvector(array_agg(membot_search_prefix(conversation_id) || lexeme)), ''::tsvector)
    FROM unnest(membot_search_vector(content))
$$;
-- +goose StatementEnd

DROP INDEX messages_search;
CREATE INDEX messages_search ON messages USING gin (membot_search_keys(conversation_id, content))
    WHERE role IN ('user', 'assistant');

-- Facts: a fact that changed is not overwritten. The new row is added and
-- the old one points at it (superseded_by) with the time it stopped being
-- true (valid_until); only rows with superseded_by NULL are current (shown
-- in the prompt and by /memory). origin says who saved it: the remember
-- tool, or the background extraction ('auto') from the turn whose user row
-- is source_message_id.
ALTER TABLE memories
    ADD COLUMN superseded_by bigint REFERENCES memories (id) ON DELETE SET NULL,
    ADD COLUMN valid_until timestamptz,
    ADD COLUMN origin text NOT NULL DEFAULT 'tool' CHECK (origin IN ('tool', 'auto'));
CREATE INDEX memories_superseded_by ON memories (superseded_by) WHERE superseded_by IS NOT NULL;

-- What a model call was for (the column comes with 00012): the chat turn,
-- a recording, or the background work.
ALTER TABLE llm_calls ADD CONSTRAINT llm_calls_purpose_known
    CHECK (purpose IN ('chat', 'transcription', 'speech', 'facts', 'summary', 'embeddings'));

-- Summaries of the rows that left the model's window, in chunks. Each one
-- covers its conversation from the start up to to_message_id (it folds the
-- previous summary in); the newest is put into the context after the system
-- prompt. The raw rows stay. They go with their conversation (/new).
CREATE TABLE conversation_summaries (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    conversation_id uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    chat_id         bigint NOT NULL,
    from_message_id bigint NOT NULL, -- the first row this chunk added
    to_message_id   bigint NOT NULL, -- the last row it covers
    content         text NOT NULL CHECK (content <> ''),
    model           text NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX conversation_summaries_newest ON conversation_summaries (conversation_id, to_message_id DESC);
CREATE INDEX conversation_summaries_chat ON conversation_summaries (chat_id);

-- The cursors of the background work: each job has done every message up
-- to last_message_id. A process takes a job by setting leased_until, so
-- replicas do not do the same work twice; a lease whose process died runs
-- out. 'after_turn' (facts and summaries) starts at the newest message, so
-- an existing bot does not send its whole history to the model; 'embeddings'
-- starts at the beginning: old messages are embedded, a bounded batch a minute.
CREATE TABLE memory_jobs (
    job             text PRIMARY KEY,
    last_message_id bigint NOT NULL DEFAULT 0,
    leased_until    timestamptz,
    updated_at      timestamptz NOT NULL DEFAULT now()
);
INSERT INTO memory_jobs (job, last_message_id)
VALUES ('after_turn', (SELECT coalesce(max(id), 0) FROM messages)), ('embeddings', 0);

-- +goose Down
DROP TABLE memory_jobs;
DROP TABLE conversation_summaries;
ALTER TABLE llm_calls DROP CONSTRAINT llm_calls_purpose_known;
ALTER TABLE memories DROP COLUMN origin, DROP COLUMN valid_until, DROP COLUMN superseded_by;
DROP INDEX messages_search;
CREATE INDEX messages_search ON messages
    USING gin (to_tsvector('simple'::regconfig, membot_plain_text(content)))
    WHERE role IN ('user', 'assistant');
DROP FUNCTION membot_search_keys(uuid, text);
DROP FUNCTION membot_search_prefix(uuid);
DROP FUNCTION membot_search_query(text, text);
DROP FUNCTION membot_search_vector(text);
DROP FUNCTION membot_ts_config(text);
