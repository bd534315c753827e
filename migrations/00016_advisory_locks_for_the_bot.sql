-- A bot process is alive while it holds the advisory lock (1835363682,
-- owner_id) (00001, 00007); a chat whose owner holds no lock is taken over.
-- PostgreSQL lets every role take any advisory lock, so a read-only login
-- could take a dead owner's lock and hold its chats forever. The lock
-- functions are revoked from PUBLIC in this database and granted to the
-- role migrating and to the database's owner (the bot's role, as a rule).
-- Only a superuser may change them (they belong to pg_catalog); for anyone
-- else a NOTICE says so and the README's security section has the SQL.

-- +goose Up
-- +goose StatementBegin
DO $$
DECLARE
    fn regprocedure;
    db_owner name := (SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = current_database());
BEGIN
    IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
        RAISE NOTICE 'advisory lock functions left to PUBLIC: % is no superuser (see README, Security)', current_user;
        RETURN;
    END IF;
    FOR fn IN SELECT p.oid::regprocedure FROM pg_proc p
        WHERE p.pronamespace = 'pg_catalog'::regnamespace AND p.proname ~ '^pg_(try_)?advisory_(xact_)?lock(_shared)?$'
    LOOP
        EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', fn);
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO %I, %I', fn, current_user, db_owner);
    END LOOP;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DO $$
DECLARE
    fn regprocedure;
BEGIN
    IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
        RETURN;
    END IF;
    FOR fn IN SELECT p.oid::regprocedure FROM pg_proc p
        WHERE p.pronamespace = 'pg_catalog'::regnamespace AND p.proname ~ '^pg_(try_)?advisory_(xact_)?lock(_shared)?$'
    LOOP
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO PUBLIC', fn);
    END LOOP;
END
$$;
-- +goose StatementEnd
