-- name: adminViewsState
-- The admin views' zone, and whether the read-only role exists.
SELECT membot_timezone(), EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'membot_readonly')

-- name: setAdminViewsZone
-- Sets membot.timezone on the database (migration 00029): it needs the
-- database's owner.
SELECT membot_set_timezone($1)

