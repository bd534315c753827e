-- A turn's statements. The recall ones (turnRecall, turnFound,
-- turnRankFullText, turnRankHybrid, rowFound) are explained at the top of
-- search.sql.
--
-- The turn's user row (the turn_user_row subquery): when the update is
-- known, its row names the conversation (a retried turn stays in the
-- conversation it began in); otherwise it is the newest row of the chat's
-- current conversation. The two cases are two branches of a UNION ALL, each
-- gated by a condition on the update alone, rather than one WHERE with an
-- OR, which a generic plan (made without the values) turns into a scan of
-- the whole conversation. The chat's current conversation is found as in
-- conversations.sql, in the topic message_thread_id (0: none).

-- name: insertUserMessage
-- insertUserMessage stores the user's row in the chat's current
-- conversation, with its author's id in the metadata (in a group the text's
-- name prefix is for the model; the id is what a query should trust). A
-- second attempt at the same update stores nothing. written_at is when
-- the message was written (NULL: when stored).
WITH conv_existing AS (
	SELECT id FROM conversations WHERE chat_id = @chat_id AND message_thread_id IS NOT DISTINCT FROM nullif(@message_thread_id::bigint, 0) AND reset_at IS NULL ORDER BY created_at DESC LIMIT 1
), conv_created AS (
	INSERT INTO conversations (telegram_user_id, chat_id, message_thread_id)
	SELECT @telegram_user_id, @chat_id, nullif(@message_thread_id::bigint, 0) WHERE NOT EXISTS (SELECT 1 FROM conv_existing)
	RETURNING id
), conv AS (
	SELECT id FROM conv_existing UNION ALL SELECT id FROM conv_created
)
INSERT INTO messages (conversation_id, role, content, telegram_message_id, update_id, metadata, search_vector, written_at)
SELECT id, 'user', @content, NULLIF(@telegram_message_id::bigint, 0), NULLIF(@update_id::bigint, 0),
	jsonb_build_object('author_id', @telegram_user_id::bigint) || coalesce(@metadata::jsonb, '{}'::jsonb), membot_message_stems('user'::text, @content::text),
	@written_at::timestamptz FROM conv
ON CONFLICT (update_id) WHERE role = 'user' DO NOTHING

-- name: turnHistory
-- turnHistory is the newest @history_limit rows of the conversation of the turn's
-- user row (in its topic), forgotten ones left out, with what a user row's
-- metadata says of who wrote it (memory.Message.AuthorID and after).
SELECT * FROM (SELECT id, conversation_id::text AS conversation_id, role, content, tool_calls,
	coalesce(tool_call_id, '') AS tool_call_id, coalesce(tool_name, '') AS tool_name,
	coalesce(telegram_message_id, 0) AS telegram_message_id, coalesce(update_id, 0) AS update_id,
	metadata, created_at, coalesce(written_at, created_at) AS written_at,
	CASE WHEN tool_calls IS NOT NULL AND metadata->>'reasoning_from' = 'reasoning_content'
		THEN coalesce(metadata->>'reasoning', '') ELSE '' END AS reasoning_back,
	CASE WHEN role = 'user' THEN metadata->'media' END AS media,
	CASE WHEN role = 'user' THEN coalesce(metadata->>'refused', '') ELSE '' END AS refused,
	CASE WHEN role = 'user' THEN coalesce((metadata->>'author_id')::bigint, 0) ELSE 0 END AS author_id,
	CASE WHEN role = 'user' THEN coalesce((metadata->>'forwarded')::boolean, false) ELSE false END AS forwarded,
	CASE WHEN role = 'user' THEN coalesce(metadata->>'via_bot', '') ELSE '' END AS via_bot FROM messages m
	WHERE m.conversation_id >= (SELECT conversation_id FROM (SELECT id, conversation_id FROM (
	SELECT id, conversation_id FROM messages WHERE @update_id::bigint <> 0 AND update_id = @update_id::bigint AND role = 'user'
	UNION ALL
	(SELECT id, conversation_id FROM messages WHERE @update_id::bigint = 0 AND conversation_id =
		(SELECT id FROM conversations WHERE chat_id = @chat_id AND message_thread_id IS NOT DISTINCT FROM nullif(@message_thread_id::bigint, 0) AND reset_at IS NULL ORDER BY created_at DESC LIMIT 1)
	ORDER BY id DESC LIMIT 1)) turn_user_row) r) AND m.conversation_id <= (SELECT conversation_id FROM (SELECT id, conversation_id FROM (
	SELECT id, conversation_id FROM messages WHERE @update_id::bigint <> 0 AND update_id = @update_id::bigint AND role = 'user'
	UNION ALL
	(SELECT id, conversation_id FROM messages WHERE @update_id::bigint = 0 AND conversation_id =
		(SELECT id FROM conversations WHERE chat_id = @chat_id AND message_thread_id IS NOT DISTINCT FROM nullif(@message_thread_id::bigint, 0) AND reset_at IS NULL ORDER BY created_at DESC LIMIT 1)
	ORDER BY id DESC LIMIT 1)) turn_user_row) r) AND NOT m.forgotten
	ORDER BY m.conversation_id DESC, m.id DESC LIMIT @history_limit) newest ORDER BY id

-- name: turnConversation
-- turnConversation is the conversation of the turn's user row (topic
-- $3), its mode, model, voice replies and summary.
SELECT r.conversation_id::text, r.id, c.mode, coalesce(c.model, ''), coalesce((SELECT voice_replies FROM chat_settings WHERE chat_id = $1), false),
		coalesce((SELECT content FROM conversation_summaries WHERE conversation_id = r.conversation_id
		ORDER BY to_message_id DESC LIMIT 1), '') FROM (SELECT id, conversation_id FROM (
	SELECT id, conversation_id FROM messages WHERE $2::bigint <> 0 AND update_id = $2::bigint AND role = 'user'
	UNION ALL
	(SELECT id, conversation_id FROM messages WHERE $2::bigint = 0 AND conversation_id =
		(SELECT id FROM conversations WHERE chat_id = $1 AND message_thread_id IS NOT DISTINCT FROM nullif($3::bigint, 0) AND reset_at IS NULL ORDER BY created_at DESC LIMIT 1)
	ORDER BY id DESC LIMIT 1)) turn_user_row) r
		JOIN conversations c ON c.id = r.conversation_id

-- name: turnRecall
-- turnRecall is the auto-recall of a turn with the message's embedding
-- (autoRecallFront and the semantic side) over the conversation of its
-- user row, stored before it in StartTurn's batch, before its window of
-- @history_limit rows: the semantic side ranks anyway, so no found
-- statement first.
WITH turn AS (SELECT r.conversation_id, r.id, (SELECT m.search_vector FROM messages m WHERE m.id = r.id) AS v
		FROM (SELECT id, conversation_id FROM (
	SELECT id, conversation_id FROM messages WHERE @update_id::bigint <> 0 AND update_id = @update_id::bigint AND role = 'user'
	UNION ALL
	(SELECT id, conversation_id FROM messages WHERE @update_id::bigint = 0 AND conversation_id =
		(SELECT id FROM conversations WHERE chat_id = @chat_id AND message_thread_id IS NOT DISTINCT FROM nullif(@message_thread_id::bigint, 0) AND reset_at IS NULL ORDER BY created_at DESC LIMIT 1)
	ORDER BY id DESC LIMIT 1)) turn_user_row) r),
win AS MATERIALIZED (
	SELECT w.* FROM turn, LATERAL (
		SELECT m.id, m.search_vector AS v FROM messages m
		WHERE m.conversation_id >= turn.conversation_id AND m.conversation_id <= turn.conversation_id
		  AND m.id IS DISTINCT FROM turn.id
		ORDER BY m.conversation_id DESC, m.id DESC LIMIT @history_limit - 1) w),
scope AS (
	SELECT turn.conversation_id, CASE WHEN (SELECT count(*) FROM win) < @history_limit - 1 THEN 0
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
	 CASE WHEN false OR length(m.content) > 400
	THEN ts_headline(membot_ts_config(membot_plain_text(m.content)), membot_plain_text(m.content), (SELECT q FROM tq),
		CASE WHEN length(m.content) <= 400 THEN 'HighlightAll=true, StartSel=«, StopSel=»'
		ELSE 'MaxFragments=2, MaxWords=30, MinWords=10, StartSel=«, StopSel=», FragmentDelimiter=" … "' END)
	ELSE membot_plain_text(m.content) END AS text
FROM fused f JOIN messages m ON m.id = f.id AND NOT m.forgotten
ORDER BY f.score DESC, m.id DESC

-- name: turnFound
-- turnFound tells whether the turn's auto-recall without an embedding
-- has anything to rank (autoRecallFound). Most turns' recall does not,
-- and setting up the ranking costs even for no rows; so StartTurn ranks
-- only after this says yes, in a round trip of its own (turnRank).
WITH turn AS (SELECT r.conversation_id, r.id, (SELECT m.search_vector FROM messages m WHERE m.id = r.id) AS v
		FROM (SELECT id, conversation_id FROM (
	SELECT id, conversation_id FROM messages WHERE @update_id::bigint <> 0 AND update_id = @update_id::bigint AND role = 'user'
	UNION ALL
	(SELECT id, conversation_id FROM messages WHERE @update_id::bigint = 0 AND conversation_id =
		(SELECT id FROM conversations WHERE chat_id = @chat_id AND message_thread_id IS NOT DISTINCT FROM nullif(@message_thread_id::bigint, 0) AND reset_at IS NULL ORDER BY created_at DESC LIMIT 1)
	ORDER BY id DESC LIMIT 1)) turn_user_row) r),
win AS MATERIALIZED (
	SELECT w.* FROM turn, LATERAL (
		SELECT m.id FROM messages m
		WHERE m.conversation_id >= turn.conversation_id AND m.conversation_id <= turn.conversation_id
		  AND m.id IS DISTINCT FROM turn.id
		ORDER BY m.conversation_id DESC, m.id DESC LIMIT @history_limit - 1) w),
scope AS (
	SELECT turn.conversation_id, CASE WHEN (SELECT count(*) FROM win) < @history_limit - 1 THEN 0
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
SELECT EXISTS (SELECT FROM scope, uses u WHERE u.n <= 20 AND u.oldest < scope.before_id) AND @recall_limit::int > 0

-- name: turnRankFullText
-- turnRank ranks autoRecallFront for the turn's row @turn_id, known once
-- the batch that stored it is done, before its window of @history_limit rows, with
-- and without vectors; rowFound is turnFound for it.
WITH turn AS (SELECT m.conversation_id, m.id, m.search_vector AS v FROM messages m WHERE m.id = @turn_id),
win AS MATERIALIZED (
	SELECT w.* FROM turn, LATERAL (
		SELECT m.id, m.search_vector AS v FROM messages m
		WHERE m.conversation_id >= turn.conversation_id AND m.conversation_id <= turn.conversation_id
		  AND m.id IS DISTINCT FROM turn.id
		ORDER BY m.conversation_id DESC, m.id DESC LIMIT @history_limit - 1) w),
scope AS (
	SELECT turn.conversation_id, CASE WHEN (SELECT count(*) FROM win) < @history_limit - 1 THEN 0
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
fused AS (SELECT id, 1.0 / (1 + r) AS score FROM fts WHERE r <= @recall_limit)
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

-- name: turnRankHybrid
WITH turn AS (SELECT m.conversation_id, m.id, m.search_vector AS v FROM messages m WHERE m.id = @turn_id),
win AS MATERIALIZED (
	SELECT w.* FROM turn, LATERAL (
		SELECT m.id, m.search_vector AS v FROM messages m
		WHERE m.conversation_id >= turn.conversation_id AND m.conversation_id <= turn.conversation_id
		  AND m.id IS DISTINCT FROM turn.id
		ORDER BY m.conversation_id DESC, m.id DESC LIMIT @history_limit - 1) w),
scope AS (
	SELECT turn.conversation_id, CASE WHEN (SELECT count(*) FROM win) < @history_limit - 1 THEN 0
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
	 CASE WHEN false OR length(m.content) > 400
	THEN ts_headline(membot_ts_config(membot_plain_text(m.content)), membot_plain_text(m.content), (SELECT q FROM tq),
		CASE WHEN length(m.content) <= 400 THEN 'HighlightAll=true, StartSel=«, StopSel=»'
		ELSE 'MaxFragments=2, MaxWords=30, MinWords=10, StartSel=«, StopSel=», FragmentDelimiter=" … "' END)
	ELSE membot_plain_text(m.content) END AS text
FROM fused f JOIN messages m ON m.id = f.id AND NOT m.forgotten
ORDER BY f.score DESC, m.id DESC

-- name: rowFound
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

-- name: receivedText
-- receivedText logs the message_received event of the turn (in its topic).
INSERT INTO events (type, telegram_user_id, chat_id, conversation_id, update_id, payload)
SELECT 'message_received', @telegram_user_id::bigint, @chat_id::bigint, r.conversation_id, NULLIF(@update_id::bigint, 0), jsonb_build_object('kind', @kind::text)
FROM (SELECT id, conversation_id FROM (
	SELECT id, conversation_id FROM messages WHERE @update_id::bigint <> 0 AND update_id = @update_id::bigint AND role = 'user'
	UNION ALL
	(SELECT id, conversation_id FROM messages WHERE @update_id::bigint = 0 AND conversation_id =
		(SELECT id FROM conversations WHERE chat_id = @chat_id AND message_thread_id IS NOT DISTINCT FROM nullif(@message_thread_id::bigint, 0) AND reset_at IS NULL ORDER BY created_at DESC LIMIT 1)
	ORDER BY id DESC LIMIT 1)) turn_user_row) r
ON CONFLICT (type, update_id)
WHERE type IN ('message_received', 'reply_sent', 'access_denied', 'rate_limited') DO NOTHING

-- name: turnAnswer
SELECT id, conversation_id::text AS conversation_id, role, content, tool_calls,
	coalesce(tool_call_id, '') AS tool_call_id, coalesce(tool_name, '') AS tool_name,
	coalesce(telegram_message_id, 0) AS telegram_message_id, coalesce(update_id, 0) AS update_id,
	metadata, created_at, coalesce(written_at, created_at) AS written_at,
	CASE WHEN tool_calls IS NOT NULL AND metadata->>'reasoning_from' = 'reasoning_content'
		THEN coalesce(metadata->>'reasoning', '') ELSE '' END AS reasoning_back,
	CASE WHEN role = 'user' THEN metadata->'media' END AS media FROM messages
WHERE update_id = $1 AND role = 'assistant' AND tool_calls IS NULL ORDER BY id DESC LIMIT 1

-- name: resumeHistory
-- resumeHistory is the conversation's newest $2 rows (forgotten ones
-- left out) plus the assistant
-- row $3 and the results of its calls, however far back they are, oldest first.
SELECT id, conversation_id::text AS conversation_id, role, content, tool_calls,
	coalesce(tool_call_id, '') AS tool_call_id, coalesce(tool_name, '') AS tool_name,
	coalesce(telegram_message_id, 0) AS telegram_message_id, coalesce(update_id, 0) AS update_id,
	metadata, created_at, coalesce(written_at, created_at) AS written_at,
	CASE WHEN tool_calls IS NOT NULL AND metadata->>'reasoning_from' = 'reasoning_content'
		THEN coalesce(metadata->>'reasoning', '') ELSE '' END AS reasoning_back,
	CASE WHEN role = 'user' THEN metadata->'media' END AS media FROM messages WHERE id IN (
	(SELECT id FROM messages WHERE conversation_id = $1 AND NOT forgotten ORDER BY id DESC LIMIT $2)
	UNION SELECT $3::bigint
	UNION SELECT id FROM messages WHERE conversation_id = $1 AND role = 'tool' AND id > $3
	      AND tool_call_id IN (SELECT c->>'id' FROM messages, jsonb_array_elements(tool_calls) c WHERE id = $3)
) ORDER BY id

-- name: resumeSummary
-- resumeSummary is the newest summary of conversation $1.
SELECT coalesce((SELECT content FROM conversation_summaries WHERE conversation_id = $1::uuid
		ORDER BY to_message_id DESC LIMIT 1), '')

-- name: turnSettings
SELECT set_config('synchronous_commit', 'off', true), set_config('plan_cache_mode', 'force_generic_plan', true), set_config('enable_seqscan', 'off', true), set_config('jit', 'off', true)

-- name: resumeUserRow
SELECT coalesce(max(id), 0) FROM messages WHERE conversation_id = $1 AND role = 'user' AND id < $2

-- name: turnUserRow
-- turnUserRow is the turn's user row alone (topic $3), as the turn's
-- statements find it; the plan tests plan it on its own.
SELECT id, conversation_id FROM (
	SELECT id, conversation_id FROM messages WHERE $2::bigint <> 0 AND update_id = $2::bigint AND role = 'user'
	UNION ALL
	(SELECT id, conversation_id FROM messages WHERE $2::bigint = 0 AND conversation_id =
		(SELECT id FROM conversations WHERE chat_id = $1 AND message_thread_id IS NOT DISTINCT FROM nullif($3::bigint, 0) AND reset_at IS NULL ORDER BY created_at DESC LIMIT 1)
	ORDER BY id DESC LIMIT 1)) turn_user_row

