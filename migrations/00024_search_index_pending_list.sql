-- The full-text index (messages_search) takes new keys into a pending
-- list (GIN's fastupdate) that every lookup reads whole until it is
-- merged into the index: by VACUUM, which autovacuum runs on a large
-- table only after a fifth of its rows are new, or by the insert that
-- takes the list past gin_pending_list_limit, 4 MB by default. A search or
-- a turn's auto-recall then read up to 4 MB at each of their lookups:
-- 84 pages (3,010 entries) made one lookup 0.35-0.45 ms instead of
-- 0.01 ms (BENCHMARKS.md). 64 kB keeps the list to 8 pages; the insert
-- that passes it merges them (no difference to a turn measured).

-- +goose Up
ALTER INDEX messages_search SET (gin_pending_list_limit = 64);
SELECT gin_clean_pending_list('messages_search'::regclass);

-- +goose Down
ALTER INDEX messages_search RESET (gin_pending_list_limit);
