-- messages.search_vector was a generated column (00022). PostgreSQL
-- prepares a generated column's expression again for every INSERT it runs
-- (it reads the expression from the catalog as text, parses and plans it):
-- 0.02-0.05 ms an insert, on the path of every reply (two inserts a turn).
-- Now it is a plain column with the same values: the bot's inserts compute
-- it in their own statement (planned once per connection), and a trigger
-- fills it for any other insert that leaves it out (COPY, an admin's SQL)
-- and keeps it right when a row's content or role changes. No rewrite: the
-- stored values stay.

-- +goose Up
ALTER TABLE messages ALTER COLUMN search_vector DROP EXPRESSION;

-- The stems a row keeps, the one rule for the trigger and the bot's
-- inserts. A plain SQL function, so that the planner inlines it into the
-- inserts' plans (no search_path of its own: that would keep it from
-- being inlined; the trigger below names it with its own).
-- +goose StatementBegin
CREATE FUNCTION membot_message_stems(role text, content text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN role IN ('user', 'assistant') THEN membot_search_vector(content) END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION membot_fill_search_vector() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
    NEW.search_vector := membot_message_stems(NEW.role, NEW.content);
    RETURN NEW;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER messages_search_vector_insert BEFORE INSERT ON messages FOR EACH ROW
    WHEN (NEW.search_vector IS NULL AND NEW.role IN ('user', 'assistant'))
    EXECUTE FUNCTION membot_fill_search_vector();
CREATE TRIGGER messages_search_vector_update BEFORE UPDATE OF content, role, search_vector ON messages FOR EACH ROW
    EXECUTE FUNCTION membot_fill_search_vector();

-- +goose Down
DROP TRIGGER messages_search_vector_update ON messages;
DROP TRIGGER messages_search_vector_insert ON messages;
DROP FUNCTION membot_fill_search_vector();
DROP FUNCTION membot_message_stems(text, text);
DROP INDEX messages_search;
ALTER TABLE messages DROP COLUMN search_vector;
ALTER TABLE messages ADD COLUMN search_vector tsvector
    GENERATED ALWAYS AS (CASE WHEN role IN ('user', 'assistant') THEN membot_search_vector(content) END) STORED;
SET LOCAL maintenance_work_mem = '256MB';
CREATE INDEX messages_search ON messages USING gin (membot_search_keys(conversation_id, search_vector))
    WITH (gin_pending_list_limit = 64) WHERE role IN ('user', 'assistant');
