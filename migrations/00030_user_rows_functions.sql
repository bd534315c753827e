-- The rows of one user, for `membot admin export` and `membot admin forget`
-- (userdata.Store.Export, Forget). A user's rows are found by one
-- convention, so that tables added later are covered without touching the
-- bot: a table that holds a user's data has a telegram_user_id column, or a
-- chat_id column (a private chat's id is the user's id; group ids are
-- negative). Two tables need more:
--   - updates: also every update the user sent (a group message they wrote,
--     a button they pressed): the update's own "from", not a user it quotes
--     or replies to, so another member's reply to them stays theirs;
--   - messages: rows of their private chats, and rows answering their
--     updates in group conversations.
-- Which tables those are is known only when the statement runs, so the
-- per-table statements are built here, in one place, with format()'s
-- quoting, and the bot's own statements stay whole text.

-- +goose Up
-- +goose StatementBegin
-- membot_user_tables lists the tables with rows of a user, in the order
-- they are deleted (dependents first, then conversations, then users), with
-- the condition on $1 that selects the rows and the order they are
-- exported in.
CREATE FUNCTION membot_user_tables() RETURNS TABLE (name text, condition text, ordering text)
LANGUAGE sql STABLE SET search_path FROM CURRENT AS $$
    WITH updates_of AS (
        SELECT 'chat_id = $1 OR jsonb_path_exists(payload, ''$.*.from ? (@.id == $uid)'', jsonb_build_object(''uid'', $1::bigint))' AS cond
    ), generic AS (
        SELECT c.table_name::text AS name,
               string_agg(format('%I = $1', c.column_name), ' OR ' ORDER BY c.column_name) AS condition
        FROM information_schema.columns c
        JOIN information_schema.tables t USING (table_schema, table_name)
        WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
          AND c.column_name IN ('telegram_user_id', 'chat_id')
        GROUP BY c.table_name
    )
    SELECT name, condition, ordering FROM (
        SELECT 0 AS rank, 'messages' AS name,
               'conversation_id IN (SELECT id FROM conversations WHERE chat_id = $1) OR update_id IN (SELECT update_id FROM updates WHERE ' || cond || ')' AS condition,
               'id' AS ordering
        FROM updates_of
        UNION ALL
        SELECT 1, 'updates', cond, 'update_id' FROM updates_of
        UNION ALL
        SELECT CASE name WHEN 'conversations' THEN 3 WHEN 'users' THEN 4 ELSE 2 END, name, condition, ''
        FROM generic WHERE name NOT IN ('messages', 'updates')
    ) tables
    ORDER BY rank, name
$$;

-- membot_export_user returns every row of user uid, table by table, as
-- JSON: exactly what membot_delete_user deletes.
CREATE FUNCTION membot_export_user(uid bigint) RETURNS TABLE (name text, rows json)
LANGUAGE plpgsql STABLE SET search_path FROM CURRENT AS $$
DECLARE
    t record;
BEGIN
    FOR t IN SELECT * FROM membot_user_tables() LOOP
        name := t.name;
        EXECUTE format('SELECT coalesce(json_agg(row_to_json(x) %s), ''[]'') FROM %I x WHERE %s',
                       CASE WHEN t.ordering <> '' THEN 'ORDER BY ' || t.ordering ELSE '' END, t.name, t.condition)
            INTO rows USING uid;
        RETURN NEXT;
    END LOOP;
END
$$;

-- membot_delete_user deletes every row of user uid in every table and
-- returns how many rows each table lost. The caller locks first and scrubs
-- the updates that only name the user (userdata.Store.Forget).
CREATE FUNCTION membot_delete_user(uid bigint) RETURNS TABLE (name text, deleted bigint)
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
    t record;
BEGIN
    FOR t IN SELECT * FROM membot_user_tables() LOOP
        name := t.name;
        EXECUTE format('DELETE FROM %I WHERE %s', t.name, t.condition) USING uid;
        GET DIAGNOSTICS deleted = ROW_COUNT;
        RETURN NEXT;
    END LOOP;
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION membot_delete_user(bigint);
DROP FUNCTION membot_export_user(bigint);
DROP FUNCTION membot_user_tables();
