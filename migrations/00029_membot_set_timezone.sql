-- membot_set_timezone sets the zone the admin views show times in
-- (membot.timezone, read by membot_timezone()) for the sessions opened
-- from now on. ALTER DATABASE takes no parameters: the database's name and
-- the zone are quoted into it here, so the bot's statement is whole text
-- (memory/sql/store.sql). Like the ALTER DATABASE it runs, it needs the
-- database's owner; anyone else gets its error.

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION membot_set_timezone(zone text) RETURNS void LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
    EXECUTE format('ALTER DATABASE %I SET membot.timezone = %L', current_database(), zone);
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION membot_set_timezone(text);
