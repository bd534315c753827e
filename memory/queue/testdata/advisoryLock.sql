SELECT pg_advisory_lock($1::int4, $2::int4)
