WITH turn AS (SELECT m.conversation_id, m.id, m.search_vector AS v FROM messages m WHERE m.id = $1),
win AS MATERIALIZED (
	SELECT w.* FROM turn, LATERAL (
		SELECT m.id FROM messages m
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
todo AS MATERIALIZED (
	SELECT l.lexeme FROM scope, q, unnest(q.lexemes) l (lexeme)
	WHERE NOT (SELECT EXISTS (SELECT FROM conversation_frequent_stems f
		WHERE f.conversation_id = scope.conversation_id AND f.lexeme = l.lexeme))),
uses AS MATERIALIZED (
	SELECT t.lexeme, p.n, p.oldest
	FROM scope, q, todo t, LATERAL (SELECT count(*) AS n, min(p.id) AS oldest FROM (SELECT m.id, m.search_vector AS v FROM messages m
		WHERE m.conversation_id::text = scope.conversation_id::text AND m.role IN ('user', 'assistant')
		  AND (m.id + 0 < scope.before_id OR m.id + 0 >= scope.window_from OR m.id + 0 = scope.turn_id)
		  AND membot_search_keys(m.conversation_id, m.search_vector) @@ quote_literal(q.prefix || t.lexeme)::tsquery
		LIMIT 20 + 1) p) p),
learning AS MATERIALIZED (SELECT u.lexeme FROM uses u WHERE u.n > 20),
versions AS MATERIALIZED (
	SELECT c.stems_version AS counted,
		(SELECT l.stems_version FROM conversations l WHERE l.id = c.id FOR SHARE SKIP LOCKED) AS now
	FROM scope, conversations c WHERE c.id = scope.conversation_id AND EXISTS (SELECT FROM learning)),
learned AS (
	INSERT INTO conversation_frequent_stems (conversation_id, lexeme)
	SELECT scope.conversation_id, l.lexeme FROM scope, learning l, versions v WHERE v.counted = v.now
	ORDER BY l.lexeme -- two turns learning at once wait for each other in one order, not in a deadlock
	ON CONFLICT DO NOTHING)
SELECT EXISTS (SELECT FROM scope, uses u WHERE u.n <= 20 AND u.oldest < scope.before_id) AND $3::int > 0
