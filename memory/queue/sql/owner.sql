-- name: advisoryLock
SELECT pg_advisory_lock($1::int4, $2::int4)

-- name: advisoryUnlock
SELECT pg_advisory_unlock($1::int4, $2::int4)

-- name: ping
SELECT 1

