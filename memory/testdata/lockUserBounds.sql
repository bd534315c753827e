SELECT pg_advisory_xact_lock(hashtextextended('membot user ' || $1::bigint::text, 0))
