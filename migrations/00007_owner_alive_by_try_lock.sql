-- membot_owner_alive asked pg_locks whether the owner's advisory lock is
-- held. pg_locks copies the whole lock table, taking every lock partition,
-- on each call: 76 µs on an idle server, more with many connections, and a
-- claim calls it whenever the chat's oldest update is being handled (one
-- chat writing back to back: every turn). Trying to take the same lock,
-- shared, answers the same question in a microsecond: the try fails while
-- the owner's session holds it. When the owner is gone the try succeeds and
-- the shared lock lasts until the asking transaction ends; a new process
-- that drew the same owner id waits that long for its own lock. Taking a
-- lock is a side effect, so the function is now VOLATILE. It must not be
-- asked on the owner's own lock connection (a session never conflicts with
-- itself); queue.OwnerLock keeps that connection to itself. A NULL owner
-- is not alive, as before.

-- +goose Up
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION membot_owner_alive(owner integer) RETURNS boolean
LANGUAGE sql VOLATILE AS $$
    SELECT coalesce(NOT pg_try_advisory_xact_lock_shared(1835363682, owner), false)
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION membot_owner_alive(owner integer) RETURNS boolean
LANGUAGE sql STABLE AS $$
    SELECT EXISTS (
        SELECT 1 FROM pg_locks
        WHERE locktype = 'advisory' AND granted
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND classid = 1835363682::oid AND objid = owner::oid AND objsubid = 2)
$$;
-- +goose StatementEnd
