SELECT pg_advisory_unlock($1::int4, $2::int4)
