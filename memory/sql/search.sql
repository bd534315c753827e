-- Recall: search_history's statements (searchFullText, searchHybrid) and a
-- turn's auto-recall (turnRecall, turnFound, turnRankFullText,
-- turnRankHybrid, rowFound in turns.sql) share the parts described here.
--
-- A statement is a front, which finds full-text candidates among one
-- conversation's user and assistant rows, then a ranking. The front defines
-- scope (conversation_id; before_id: only older rows are recalled), q (the
-- query's stems and the conversation's key prefix), tq (the stems as a
-- tsquery), rows (n, the conversation's size), df (lexeme, df) and hits
-- (id, lexeme, tf, len). Rows are found through the full-text index, whose
-- keys carry the conversation (migrations 00013, 00022): the conversation is
-- compared as text and m.id written m.id + 0 so that no btree is asked
-- instead. A probe (LATERAL ... p) looks up one stem's rows.
--
-- The ranking scores hits by BM25 (k1 1.2, b 0.75, in float8) and, with
-- vectors, the conversation's newest 1000 embeddings by cosine distance to
-- the query's (sem_from is found once, not per embedding compared), then
-- fuses the two by reciprocal rank with k = 1, so that each ranking's best
-- rows come first and agreement still lifts a row. Each ranking gives at
-- most 20 candidates. Short rows are shown whole, long ones as their best
-- fragments, the matched words marked «like this».
--
-- search_history reads at most 1000 + stems × 201 rows: how often a stem
-- occurs among the newest 1000 rows estimates its frequency; a stem
-- estimated at no more than 5000 rows is looked up among the older ones
-- (at most 201): with no more than 200 it is rare, its rows candidates and
-- its document frequency exact; otherwise it is frequent and only its rows
-- among the newest count. A conversation larger than 1000 rows is sized
-- from the ids its newest rows span. The query is its first 12 words.
--
-- Auto-recall, on the path of every reply, takes only rows older than the
-- model's window (and than the turn's row) that share a stem of the turn's
-- first 12 words (of two letters or more) which the conversation uses at
-- most 20 times, window and turn included. turn is the turn's row and its
-- stems (a subquery: a join of a new bot's one-row tables was planned as a
-- scan); win is the window read by a range of conversations as lastMessages
-- reads it; scope's before_id is 0 when the conversation fits in the
-- window. A stem's count in the window comes from the window's stored
-- stems (ts_filter into one array, joined by a control character no lexeme
-- holds), and rows is estimated from the window's id density, read only
-- when df has rows.
--
-- turnFound and rowFound tell whether there is anything to rank: a row
-- older than the window shares a stem used at most 20 times. Each stem is
-- looked up once (at most 21 rows), except those conversation_frequent_stems
-- lists (migration 00027), which it adds as it finds them, but only while
-- the conversation's stems_version is the one it counted under (versions:
-- a delete raises it, migration 00028); it never waits for that row's lock.

-- name: searchFullText
-- searchFullText and searchHybrid are search_history's statement over a
-- conversation's rows before before_id, without and with vectors.
WITH scope AS (SELECT @conversation_id::uuid AS conversation_id, @before_id::bigint AS before_id),
q AS (SELECT tsvector_to_array(to_tsvector(membot_ts_config(@words), @words)) AS lexemes, membot_search_prefix(scope.conversation_id) AS prefix FROM scope),
tq AS (SELECT coalesce(array_to_string(ARRAY(SELECT quote_literal(l) FROM unnest(q.lexemes) l), ' | ')::tsquery, ''::tsquery) AS q FROM q),
ends AS MATERIALIZED (
	SELECT (SELECT m.id FROM messages m WHERE m.conversation_id = scope.conversation_id AND m.id < scope.before_id
		ORDER BY m.id DESC LIMIT 1) AS newest,
	(SELECT m.id FROM messages m WHERE m.conversation_id = scope.conversation_id AND m.id < scope.before_id
		ORDER BY m.id DESC OFFSET 1000 - 1 LIMIT 1) AS counted_from,
	(SELECT m.id FROM messages m WHERE m.conversation_id = scope.conversation_id ORDER BY m.id LIMIT 1) AS oldest
	FROM scope),
rows AS MATERIALIZED (
	SELECT CASE WHEN ends.counted_from IS NULL
		THEN (SELECT count(*) FROM messages m WHERE m.conversation_id = scope.conversation_id AND m.id < scope.before_id)
		ELSE (1000 - 1) * (ends.newest - ends.oldest + 1)::float8 / greatest(ends.newest - ends.counted_from, 1) + 1
		END::float8 AS n
	FROM scope, ends),
recent_from AS (
	SELECT (SELECT m.id FROM messages m WHERE m.conversation_id = scope.conversation_id AND m.id < scope.before_id
		ORDER BY m.id DESC OFFSET 1000 - 1 LIMIT 1) AS id
	FROM scope),
recent_hits AS MATERIALIZED (
	SELECT m.id, u.lexeme, coalesce(array_length(u.positions, 1), 1) AS tf, length(m.search_vector) AS len
	FROM scope, recent_from, q, tq, messages m, unnest(ts_filter(setweight(m.search_vector, 'A', q.lexemes), '{a}')) u
	WHERE m.conversation_id = scope.conversation_id AND m.id < scope.before_id AND m.id >= coalesce(recent_from.id, 0)
	  AND m.search_vector @@ tq.q),
est AS MATERIALIZED (
	SELECT l.lexeme, count(h.id)::float8 AS seen,
		count(h.id) * rows.n / greatest(CASE WHEN recent_from.id IS NULL THEN rows.n ELSE 1000 END, 1) AS est
	FROM q, rows, recent_from, unnest(q.lexemes) l (lexeme) LEFT JOIN recent_hits h ON h.lexeme = l.lexeme
	GROUP BY l.lexeme, rows.n, recent_from.id),
probe AS (
	SELECT e.lexeme, p.id, p.v
	FROM scope, q, recent_from, est e, LATERAL (SELECT m.id, m.search_vector AS v FROM messages m
		WHERE m.conversation_id::text = scope.conversation_id::text AND m.role IN ('user', 'assistant')
		  AND m.id + 0 < recent_from.id
		  AND membot_search_keys(m.conversation_id, m.search_vector) @@ quote_literal(q.prefix || e.lexeme)::tsquery
		LIMIT 200 + 1) p
	WHERE recent_from.id IS NOT NULL AND e.est <= 5000),
probed AS (SELECT lexeme, count(*) AS n FROM probe GROUP BY lexeme),
df AS MATERIALIZED (
	SELECT e.lexeme, CASE WHEN recent_from.id IS NULL OR e.est <= 5000 AND coalesce(p.n, 0) <= 200
		THEN e.seen + coalesce(p.n, 0) ELSE greatest(e.est, e.seen + coalesce(p.n, 0)) END AS df
	FROM est e LEFT JOIN probed p USING (lexeme), recent_from),
old AS (
	SELECT DISTINCT ON (p.id) p.id, p.v FROM probe p JOIN probed USING (lexeme)
	WHERE probed.n <= 200 ORDER BY p.id),
hits AS (
	SELECT id, lexeme, tf, len FROM recent_hits
	UNION ALL
	SELECT o.id, u.lexeme, coalesce(array_length(u.positions, 1), 1), length(o.v)
	FROM old o, q, unnest(ts_filter(setweight(o.v, 'A', q.lexemes), '{a}')) u),
avglen AS (SELECT greatest(avg(len)::float8, 1) AS a FROM (SELECT DISTINCT id, len FROM hits) d),
fts AS (
	SELECT h.id, row_number() OVER (ORDER BY sum(
		ln(1 + (greatest(rows.n, df.df) - df.df + 0.5) / (df.df + 0.5)) * h.tf * (1.2::float8 + 1)
		/ (h.tf + 1.2::float8 * (1 - 0.75::float8 + 0.75::float8 * h.len / avglen.a))) DESC, h.id DESC) AS r
	FROM hits h JOIN df USING (lexeme), rows, avglen
	GROUP BY h.id ORDER BY r LIMIT 20),
fused AS (SELECT id, 1.0 / (1 + r) AS score FROM fts WHERE r <= @recall_limit)
SELECT m.id, m.role, coalesce(m.written_at, m.created_at) AS written_at,
	CASE WHEN m.role = 'user' THEN coalesce((m.metadata->>'author_id')::bigint, 0) ELSE 0 END AS author_id,
	m.role = 'user' AND coalesce((m.metadata->>'forwarded')::boolean, false) AS forwarded,
	CASE WHEN m.role = 'user' THEN coalesce(m.metadata->>'via_bot', '') ELSE '' END AS via_bot,
	CASE WHEN m.role = 'user' THEN m.metadata->'media' END AS media,
	
	ts_headline(membot_ts_config(membot_plain_text(m.content)), membot_plain_text(m.content), (SELECT q FROM tq),
		CASE WHEN length(m.content) <= 400 THEN 'HighlightAll=true, StartSel=«, StopSel=»'
		ELSE 'MaxFragments=2, MaxWords=30, MinWords=10, StartSel=«, StopSel=», FragmentDelimiter=" … "' END) AS text
FROM fused f JOIN messages m ON m.id = f.id AND NOT m.forgotten
ORDER BY f.score DESC, m.id DESC

-- name: searchHybrid
WITH scope AS (SELECT @conversation_id::uuid AS conversation_id, @before_id::bigint AS before_id),
q AS (SELECT tsvector_to_array(to_tsvector(membot_ts_config(@words), @words)) AS lexemes, membot_search_prefix(scope.conversation_id) AS prefix FROM scope),
tq AS (SELECT coalesce(array_to_string(ARRAY(SELECT quote_literal(l) FROM unnest(q.lexemes) l), ' | ')::tsquery, ''::tsquery) AS q FROM q),
ends AS MATERIALIZED (
	SELECT (SELECT m.id FROM messages m WHERE m.conversation_id = scope.conversation_id AND m.id < scope.before_id
		ORDER BY m.id DESC LIMIT 1) AS newest,
	(SELECT m.id FROM messages m WHERE m.conversation_id = scope.conversation_id AND m.id < scope.before_id
		ORDER BY m.id DESC OFFSET 1000 - 1 LIMIT 1) AS counted_from,
	(SELECT m.id FROM messages m WHERE m.conversation_id = scope.conversation_id ORDER BY m.id LIMIT 1) AS oldest
	FROM scope),
rows AS MATERIALIZED (
	SELECT CASE WHEN ends.counted_from IS NULL
		THEN (SELECT count(*) FROM messages m WHERE m.conversation_id = scope.conversation_id AND m.id < scope.before_id)
		ELSE (1000 - 1) * (ends.newest - ends.oldest + 1)::float8 / greatest(ends.newest - ends.counted_from, 1) + 1
		END::float8 AS n
	FROM scope, ends),
recent_from AS (
	SELECT (SELECT m.id FROM messages m WHERE m.conversation_id = scope.conversation_id AND m.id < scope.before_id
		ORDER BY m.id DESC OFFSET 1000 - 1 LIMIT 1) AS id
	FROM scope),
recent_hits AS MATERIALIZED (
	SELECT m.id, u.lexeme, coalesce(array_length(u.positions, 1), 1) AS tf, length(m.search_vector) AS len
	FROM scope, recent_from, q, tq, messages m, unnest(ts_filter(setweight(m.search_vector, 'A', q.lexemes), '{a}')) u
	WHERE m.conversation_id = scope.conversation_id AND m.id < scope.before_id AND m.id >= coalesce(recent_from.id, 0)
	  AND m.search_vector @@ tq.q),
est AS MATERIALIZED (
	SELECT l.lexeme, count(h.id)::float8 AS seen,
		count(h.id) * rows.n / greatest(CASE WHEN recent_from.id IS NULL THEN rows.n ELSE 1000 END, 1) AS est
	FROM q, rows, recent_from, unnest(q.lexemes) l (lexeme) LEFT JOIN recent_hits h ON h.lexeme = l.lexeme
	GROUP BY l.lexeme, rows.n, recent_from.id),
probe AS (
	SELECT e.lexeme, p.id, p.v
	FROM scope, q, recent_from, est e, LATERAL (SELECT m.id, m.search_vector AS v FROM messages m
		WHERE m.conversation_id::text = scope.conversation_id::text AND m.role IN ('user', 'assistant')
		  AND m.id + 0 < recent_from.id
		  AND membot_search_keys(m.conversation_id, m.search_vector) @@ quote_literal(q.prefix || e.lexeme)::tsquery
		LIMIT 200 + 1) p
	WHERE recent_from.id IS NOT NULL AND e.est <= 5000),
probed AS (SELECT lexeme, count(*) AS n FROM probe GROUP BY lexeme),
df AS MATERIALIZED (
	SELECT e.lexeme, CASE WHEN recent_from.id IS NULL OR e.est <= 5000 AND coalesce(p.n, 0) <= 200
		THEN e.seen + coalesce(p.n, 0) ELSE greatest(e.est, e.seen + coalesce(p.n, 0)) END AS df
	FROM est e LEFT JOIN probed p USING (lexeme), recent_from),
old AS (
	SELECT DISTINCT ON (p.id) p.id, p.v FROM probe p JOIN probed USING (lexeme)
	WHERE probed.n <= 200 ORDER BY p.id),
hits AS (
	SELECT id, lexeme, tf, len FROM recent_hits
	UNION ALL
	SELECT o.id, u.lexeme, coalesce(array_length(u.positions, 1), 1), length(o.v)
	FROM old o, q, unnest(ts_filter(setweight(o.v, 'A', q.lexemes), '{a}')) u),
avglen AS (SELECT greatest(avg(len)::float8, 1) AS a FROM (SELECT DISTINCT id, len FROM hits) d),
fts AS (
	SELECT h.id, row_number() OVER (ORDER BY sum(
		ln(1 + (greatest(rows.n, df.df) - df.df + 0.5) / (df.df + 0.5)) * h.tf * (1.2::float8 + 1)
		/ (h.tf + 1.2::float8 * (1 - 0.75::float8 + 0.75::float8 * h.len / avglen.a))) DESC, h.id DESC) AS r
	FROM hits h JOIN df USING (lexeme), rows, avglen
	GROUP BY h.id ORDER BY r LIMIT 20),
qv AS MATERIALIZED (SELECT @embedding::text::vector AS v WHERE @embedding::text IS NOT NULL),
sem_from AS MATERIALIZED (
	SELECT coalesce((SELECT x.message_id FROM message_embeddings x
		WHERE x.conversation_id = scope.conversation_id AND x.model = @embedding_model AND x.message_id < scope.before_id
		ORDER BY x.message_id DESC OFFSET 1000 - 1 LIMIT 1), 0) AS id
	FROM scope),
sem AS (
	SELECT e.message_id AS id, row_number() OVER (ORDER BY e.embedding <=> qv.v, e.message_id DESC) AS r
	FROM scope, qv, sem_from, message_embeddings e
	WHERE e.conversation_id = scope.conversation_id AND e.model = @embedding_model
	  AND e.message_id < scope.before_id AND e.message_id >= sem_from.id
	ORDER BY r LIMIT 20),
fused AS (
	SELECT id, sum(1.0 / (1 + r)) AS score
	FROM (SELECT id, r FROM fts UNION ALL SELECT id, r FROM sem) ranked
	GROUP BY id ORDER BY score DESC, id DESC LIMIT @recall_limit)
SELECT m.id, m.role, coalesce(m.written_at, m.created_at) AS written_at,
	CASE WHEN m.role = 'user' THEN coalesce((m.metadata->>'author_id')::bigint, 0) ELSE 0 END AS author_id,
	m.role = 'user' AND coalesce((m.metadata->>'forwarded')::boolean, false) AS forwarded,
	CASE WHEN m.role = 'user' THEN coalesce(m.metadata->>'via_bot', '') ELSE '' END AS via_bot,
	CASE WHEN m.role = 'user' THEN m.metadata->'media' END AS media,
	
	ts_headline(membot_ts_config(membot_plain_text(m.content)), membot_plain_text(m.content), (SELECT q FROM tq),
		CASE WHEN length(m.content) <= 400 THEN 'HighlightAll=true, StartSel=«, StopSel=»'
		ELSE 'MaxFragments=2, MaxWords=30, MinWords=10, StartSel=«, StopSel=», FragmentDelimiter=" … "' END) AS text
FROM fused f JOIN messages m ON m.id = f.id AND NOT m.forgotten
ORDER BY f.score DESC, m.id DESC


-- name: searchNeighbours
-- searchNeighbours reads the rows around each of the hits $2 of
-- conversation $1, older than row $3: on each side the two nearest user
-- or assistant rows with text (side -1 before the hit, 1 after it; the
-- caller keeps the second only when the first is short: a question and
-- its answer, or the turns of an exchange, sit next to each other, and a
-- bare "ok" between them says nothing). Each side is one backward or
-- forward walk of the (conversation_id, id) index that stops after two
-- rows, whatever the conversation's size: the conversation is a range
-- ("between c and c", as lastMessages says why), so that no plan walks the
-- primary key across other conversations' rows. A row over 400 characters is
-- cut to its first 300, as a fragment. A forgotten row is left out here
-- as in the searches. Each row comes with what a user row's metadata says
-- of who wrote it, as the searches' rows do (memory.Snippet).
SELECT h.id AS hit, n.side, n.id, n.role, n.written_at, n.author_id, n.forwarded, n.via_bot, n.media,
	CASE WHEN length(n.text) <= 400 THEN n.text ELSE left(n.text, 300) || ' …' END AS text
FROM unnest($2::bigint[]) h (id), LATERAL (
	(SELECT -1 AS side, m.id, m.role, coalesce(m.written_at, m.created_at) AS written_at,
	CASE WHEN m.role = 'user' THEN coalesce((m.metadata->>'author_id')::bigint, 0) ELSE 0 END AS author_id,
	m.role = 'user' AND coalesce((m.metadata->>'forwarded')::boolean, false) AS forwarded,
	CASE WHEN m.role = 'user' THEN coalesce(m.metadata->>'via_bot', '') ELSE '' END AS via_bot,
	CASE WHEN m.role = 'user' THEN m.metadata->'media' END AS media, membot_plain_text(m.content) AS text FROM messages m
	WHERE m.conversation_id >= $1 AND m.conversation_id <= $1 AND m.id < h.id AND m.role IN ('user', 'assistant') AND m.content <> '' AND NOT m.forgotten
	ORDER BY m.conversation_id DESC, m.id DESC LIMIT 2)
	UNION ALL
	(SELECT 1, m.id, m.role, coalesce(m.written_at, m.created_at),
	CASE WHEN m.role = 'user' THEN coalesce((m.metadata->>'author_id')::bigint, 0) ELSE 0 END,
	m.role = 'user' AND coalesce((m.metadata->>'forwarded')::boolean, false),
	CASE WHEN m.role = 'user' THEN coalesce(m.metadata->>'via_bot', '') ELSE '' END,
	CASE WHEN m.role = 'user' THEN m.metadata->'media' END, membot_plain_text(m.content) FROM messages m
	WHERE m.conversation_id >= $1 AND m.conversation_id <= $1 AND m.id > h.id AND m.id < $3 AND m.role IN ('user', 'assistant') AND m.content <> '' AND NOT m.forgotten
	ORDER BY m.conversation_id, m.id LIMIT 2)) n
ORDER BY h.id, n.side, abs(n.id - h.id)
