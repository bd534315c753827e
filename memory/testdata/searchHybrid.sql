WITH scope AS (SELECT $1::uuid AS conversation_id, $2::bigint AS before_id),
q AS (SELECT tsvector_to_array(to_tsvector(membot_ts_config($3), $3)) AS lexemes, membot_search_prefix(scope.conversation_id) AS prefix FROM scope),
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
qv AS MATERIALIZED (SELECT $5::text::vector AS v WHERE $5::text IS NOT NULL),
sem_from AS MATERIALIZED (
	SELECT coalesce((SELECT x.message_id FROM message_embeddings x
		WHERE x.conversation_id = scope.conversation_id AND x.model = $6 AND x.message_id < scope.before_id
		ORDER BY x.message_id DESC OFFSET 1000 - 1 LIMIT 1), 0) AS id
	FROM scope),
sem AS (
	SELECT e.message_id AS id, row_number() OVER (ORDER BY e.embedding <=> qv.v, e.message_id DESC) AS r
	FROM scope, qv, sem_from, message_embeddings e
	WHERE e.conversation_id = scope.conversation_id AND e.model = $6
	  AND e.message_id < scope.before_id AND e.message_id >= sem_from.id
	ORDER BY r LIMIT 20),
fused AS (
	SELECT id, sum(1.0 / (1 + r)) AS score
	FROM (SELECT id, r FROM fts UNION ALL SELECT id, r FROM sem) ranked
	GROUP BY id ORDER BY score DESC, id DESC LIMIT $4)
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
