WITH turn AS (SELECT m.conversation_id, m.id, m.search_vector AS v FROM messages m WHERE m.id = $1),
win AS MATERIALIZED (
	SELECT w.* FROM turn, LATERAL (
		SELECT m.id, m.search_vector AS v FROM messages m
		WHERE m.conversation_id >= turn.conversation_id AND m.conversation_id <= turn.conversation_id
		  AND m.id IS DISTINCT FROM turn.id
		ORDER BY m.conversation_id DESC, m.id DESC LIMIT $2 - 1) w),
scope AS (
	SELECT turn.conversation_id, CASE WHEN (SELECT count(*) FROM win) < $2 - 1 THEN 0
		ELSE coalesce(least((SELECT min(id) FROM win), turn.id), 9223372036854775807) END AS before_id,
		(SELECT min(id) FROM win) AS window_from, turn.id AS turn_id
	FROM turn),
q AS (SELECT ARRAY(SELECT u.lexeme FROM turn, unnest(turn.v) u
		WHERE char_length(u.lexeme) >= 2 ORDER BY u.positions[1], u.lexeme LIMIT 12) AS lexemes, membot_search_prefix(scope.conversation_id) AS prefix FROM scope),
tq AS (SELECT coalesce(array_to_string(ARRAY(SELECT quote_literal(l) FROM unnest(q.lexemes) l), ' | ')::tsquery, ''::tsquery) AS q FROM q),
seen AS MATERIALIZED (
	SELECT l.lexeme, 1 + coalesce(cardinality(array_positions(w.found, l.lexeme)), 0) AS n
	FROM (SELECT string_to_array(string_agg(array_to_string(tsvector_to_array(
			ts_filter(setweight(w.v, 'A', q.lexemes), '{a}')), E'\x01'), E'\x01'), E'\x01') AS found
		FROM q, win w) w, q, unnest(q.lexemes) l (lexeme)),
probe AS (
	SELECT s.lexeme, s.n, p.id, p.v
	FROM scope, q, seen s, LATERAL (SELECT m.id, m.search_vector AS v FROM messages m
		WHERE m.conversation_id::text = scope.conversation_id::text AND m.role IN ('user', 'assistant')
		  AND m.id + 0 < scope.before_id
		  AND membot_search_keys(m.conversation_id, m.search_vector) @@ quote_literal(q.prefix || s.lexeme)::tsquery
		LIMIT 20 + 1) p
	WHERE scope.before_id > 0 AND s.n <= 20),
df AS MATERIALIZED (
	SELECT lexeme, (n + count(*))::float8 AS df FROM probe GROUP BY lexeme, n HAVING n + count(*) <= 20),
hits AS (
	SELECT p.id, u.lexeme, coalesce(array_length(u.positions, 1), 1) AS tf, length(p.v) AS len
	FROM probe p JOIN df USING (lexeme), unnest(ts_filter(setweight(p.v, 'A', ARRAY[p.lexeme]), '{a}')) u),
ends AS MATERIALIZED (
	SELECT (SELECT m.id FROM messages m WHERE m.conversation_id = scope.conversation_id ORDER BY m.id LIMIT 1) AS oldest,
		(SELECT m.id FROM messages m WHERE m.conversation_id = scope.conversation_id ORDER BY m.id DESC LIMIT 1) AS newest,
		(SELECT count(*) FROM win) AS seen, (SELECT max(id) - min(id) FROM win) AS spread
	FROM scope WHERE EXISTS (SELECT FROM df)),
rows AS MATERIALIZED (
	SELECT (CASE WHEN ends.seen >= 2 AND ends.spread > 0
		THEN (ends.seen - 1) * (ends.newest - ends.oldest + 1)::float8 / ends.spread + 1
		ELSE ends.newest - ends.oldest + 1 END)::float8 AS n
	FROM ends),
avglen AS (SELECT greatest(avg(len)::float8, 1) AS a FROM (SELECT DISTINCT id, len FROM hits) d),
fts AS (
	SELECT h.id, row_number() OVER (ORDER BY sum(
		ln(1 + (greatest(rows.n, df.df) - df.df + 0.5) / (df.df + 0.5)) * h.tf * (1.2::float8 + 1)
		/ (h.tf + 1.2::float8 * (1 - 0.75::float8 + 0.75::float8 * h.len / avglen.a))) DESC, h.id DESC) AS r
	FROM hits h JOIN df USING (lexeme), rows, avglen
	GROUP BY h.id ORDER BY r LIMIT 20),
fused AS (SELECT id, 1.0 / (1 + r) AS score FROM fts WHERE r <= $3)
SELECT m.id, m.role, coalesce(m.written_at, m.created_at) AS written_at,
	CASE WHEN m.role = 'user' THEN coalesce((m.metadata->>'author_id')::bigint, 0) ELSE 0 END AS author_id,
	m.role = 'user' AND coalesce((m.metadata->>'forwarded')::boolean, false) AS forwarded,
	CASE WHEN m.role = 'user' THEN coalesce(m.metadata->>'via_bot', '') ELSE '' END AS via_bot,
	CASE WHEN m.role = 'user' THEN m.metadata->'media' END AS media,
	 CASE WHEN false OR length(m.content) > 400
	THEN ts_headline(membot_ts_config(membot_plain_text(m.content)), membot_plain_text(m.content), (SELECT q FROM tq),
		CASE WHEN length(m.content) <= 400 THEN 'HighlightAll=true, StartSel=«, StopSel=»'
		ELSE 'MaxFragments=2, MaxWords=30, MinWords=10, StartSel=«, StopSel=», FragmentDelimiter=" … "' END)
	ELSE membot_plain_text(m.content) END AS text
FROM fused f JOIN messages m ON m.id = f.id AND NOT m.forgotten
ORDER BY f.score DESC, m.id DESC
