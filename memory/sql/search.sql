-- Recall: search_history's statements (searchFullText, searchHybrid) and a
-- turn's auto-recall (turnRecall, turnFound, turnRankFullText,
-- turnRankHybrid, rowFound in turns.sql) share the parts explained here.
--
-- Hybrid recall over the user and assistant rows of one conversation is a
-- full-text ranking (stemmed per language, stop words left out, scored by
-- BM25 over the conversation: a rare word counts more than a frequent one, a
-- short row more than a long one) and, with vectors, a ranking by cosine
-- distance between embeddings, fused by reciprocal rank. A statement is a
-- front, which finds the full-text candidates, then the ranking. The front
-- defines the CTEs scope (one row: conversation_id, before_id: only older
-- rows are recalled), q (the query: its stems and the conversation's key
-- prefix) and tq (the stems as a tsquery), rows (n, the conversation's
-- size), df (lexeme, df) and hits (id, lexeme, tf, len: a candidate row's
-- term frequency and length). The full-text side reads each row's stored
-- stems (messages.search_vector). The conversation is compared as text in
-- the index lookups so that they go through the full-text index, whose keys
-- carry the conversation (migrations 00013, 00022), never through the
-- conversation's btree. A probe (LATERAL ... p) looks up the rows of one
-- stem through that index, its condition on m.id written m.id + 0 so that
-- no btree is asked instead.
--
-- The ranking (avglen, fts, with vectors qv, sem_from, sem, then fused)
-- ranks the front's hits by BM25 (k1 1.2, b 0.75, as float8: numeric
-- arithmetic was a third of a search's time) and, with vectors, the
-- conversation's newest embeddings by their distance to the query's, fuses
-- the two and returns the best rows. Short rows are shown whole, long ones as
-- their best fragments; search_history marks the words that matched «like
-- this» (the model sees why a row came back). sem_from is found once: as a
-- condition of the join, a plan made on a new bot's empty tables ran it
-- again for every embedding it compared (17 ms a turn in the recall set,
-- growing as the square of the conversation).
--
-- The numbers written into the statements:
--
-- 1000 (recent rows), 200 (probe rows), 5000 (lookup rows): search_history's
-- full-text side reads at most 1000 + stems × 201 rows, whatever the
-- conversation's size. The conversation's newest 1000 rows are read, and how
-- often each of the query's stems occurs there estimates how often it occurs
-- in the conversation. A stem estimated at no more than 5000 rows is then
-- looked up through the index among the older rows, at most 201 of them.
-- With no more than 200, the stem is rare: its rows are candidates and its
-- document frequency is exact. A stem with more, or estimated above 5000,
-- is frequent (it says little about which row is meant): its candidates
-- are its rows among the newest, and its frequency is the estimate.
--
-- 1000 (counted rows): a conversation of more rows than this is not counted
-- for BM25: its size is estimated from the ids its newest 1000 rows span.
-- Auto-recall, on the path of every reply, counts nothing: it estimates the
-- size from the ids its window spans.
--
-- 20 (rare, auto-recall): a turn's own recall (AUTO_RECALL), on the path of
-- every reply, takes only rows older than the model's window that share a
-- stem the conversation has used at most 20 times, window included: a row
-- put into the prompt unasked should share a telling word. A stem the
-- window alone holds more often is not looked up at all, and the others
-- cost one index lookup each, of at most 21 rows.
--
-- 12 (words): the query's first 12 words, as searchWords keeps them.
--
-- 1000 (semantic rows) bounds the semantic side: the query's embedding is
-- compared with those of the conversation's newest 1000 messages (every
-- one is read: there is no approximate index, the column has no fixed
-- dimension), so a conversation of 100,000 messages does not make a
-- search read them all: 1,000 of 1,536 dimensions take about 8 ms (the
-- recall set: recall@10 0.820 with 1,000, 0.821 with all).
--
-- 20 (candidates) is how many rows each ranking contributes to the fusion:
-- twice the largest limit, enough for a row both rankings put in their
-- upper half to add up; deeper ranks weigh almost nothing with k 1.
--
-- 1 (k) is reciprocal-rank fusion's constant: a row's score is the sum over
-- the rankings of 1/(k + its rank there). It is small on purpose: the
-- usual 60 (tuned for fusing many deep rankings) makes the first and the
-- tenth rank almost equal (1/61 against 1/70), so any row both rankings
-- put somewhere in their top 40 (small talk that shares a frequent word
-- and looks vaguely alike) outscores the one row that alone holds the
-- query's rare word, or the one row an embedding model ranks first. With
-- 1, each ranking's best rows come first (1/2, 1/3, ...) and agreement
-- between the two still lifts a row above either ranking's next ones.
-- On the recall set (BENCHMARKS.md "Recall") recall@10 went from 0.723 to
-- 0.821; k from 0 to 3 gave 0.806-0.827, 5 gave 0.798, 60 gave 0.723.
--
-- Auto-recall's front: rows of the conversation older than the rows the
-- model sees anyway (its newest window, the turn's row among them) and than
-- the turn's row (on a retry, the steps stored after it may have pushed it
-- out of the window). turn is one row: conversation_id, id (the turn's row)
-- and v (the row's stems); its stems are a subquery, not a join: a join of
-- the one-row tables of a new bot was planned as a scan of all messages.
-- win is the rows of the turn's window but its own, read as lastMessages
-- reads them, by a range of conversations, so that no plan walks the
-- primary key; scope's before_id is none when the conversation is no
-- longer than the window, window_from the window's oldest row. The query
-- is the stems of the turn's first 12 words of two letters or more (a lone
-- digit is not a telling word); every query stem counts once more for the
-- turn's row itself. A stem's count in the window comes from the window's
-- stored stems: each row's stems among the query's (ts_filter), all rows'
-- in one array, each query stem's places in it (a row holds a stem once).
-- Matching every stem against every row, as a join, cost more than the
-- rest of the statement. The separator is a control character, which no
-- lexeme holds. rows (n, the size for BM25) is estimated from how densely
-- the window's rows sit among the ids (a window of fewer than 2 rows,
-- HISTORY_LIMIT 1 or 2: every id the conversation spans), and read only
-- when a rare stem was found (df has rows): counting the rows instead read
-- them all under the generic plan (0.6 ms a turn at 2,000 messages,
-- growing with the conversation).
--
-- turnFound and rowFound tell whether a turn's auto-recall has anything to
-- rank: a row older than the window shares a stem of the turn's that the
-- conversation, the turn's row included, uses at most 20 times, counting
-- the rows the ranking counts: the turn's own, the window's and those older
-- than both (a retried turn's row may be older than its window; the rows
-- between the two are in neither, and counted, they could make a stem look
-- frequent that the ranking finds rare). It looks each stem up once through
-- the full-text index (at most 21 rows), except the stems
-- conversation_frequent_stems lists for the conversation (migration 00027):
-- those it found used more often before, which it writes there as it finds
-- them. So it reads no window's stems (about 0.1 ms of every reply) and no
-- frequent stem's many rows. It writes them only while the conversation's
-- stems_version is the one it counted under (versions, read in the
-- statement's snapshot and again under a share lock, which a delete
-- committed meanwhile has raised: migration 00028). It never waits for that
-- lock: while a delete holds the row, it writes nothing and a later turn
-- learns the stem (a turn that waited there would wait out a whole purge or
-- `admin forget`, holding its own locks meanwhile).

-- name: searchFullText
-- search is search_history's statement over conversation @conversation_id before row
-- @before_id, with and without vectors.
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
