package memory

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
)

// Snippet is a message found by SearchMessages or by a turn's auto-recall.
type Snippet struct {
	MessageID int64     `db:"id"`
	Role      Role      `db:"role"`
	CreatedAt time.Time `db:"created_at"`
	Text      string    `db:"text"` // the matching fragments, matches marked «like this»
}

// Search is what SearchMessages looks for.
type Search struct {
	ConversationID string
	Text           string // free text: its words are stemmed in their language
	BeforeID       int64  // only rows older than this one; 0 for all
	Limit          int
	// Embedding, of Text by EmbeddingModel, adds semantic search over the
	// message embeddings, fused with the full-text ranking. Nil, or a store
	// without pgvector: full-text alone.
	Embedding      []float32
	EmbeddingModel string
}

// search_history's full-text side reads at most recentRows +
// len(stems) × (probeRows+1) rows, whatever the conversation's size. The
// conversation's newest recentRows rows are read, and how often each of the
// query's stems occurs there estimates how often it occurs in the
// conversation. A stem estimated at no more than lookupRows rows is then
// looked up through the index among the older rows, at most probeRows+1 of
// them. With no more, the stem is rare: its rows are candidates and its
// document frequency is exact. A stem with more, or estimated above
// lookupRows, is frequent (it says little about which row is meant): its
// candidates are its rows among the newest, and its frequency is the
// estimate. The words that matched are marked «like this» in the results:
// the model sees why a row came back.
const (
	recentRows = 1000
	probeRows  = 200
	lookupRows = 5000
)

// autoRecallRare: a turn's own recall (AUTO_RECALL), on the path of every
// reply, takes only rows older than the model's window that share a stem
// the conversation has used at most autoRecallRare times, window
// included: a row put into the prompt unasked should share a telling
// word. A stem the window alone holds more often is not looked up at all,
// and the others cost one index lookup each, of at most autoRecallRare+1
// rows.
const autoRecallRare = 20

// countedRows: a conversation of more rows than this is not counted for
// BM25: its size is estimated from the ids its newest countedRows rows
// span. Auto-recall, on the path of every reply, counts nothing: it
// estimates the size from the ids its window spans (autoRecallSizeSQL).
const countedRows = 1000

// semanticRows bounds the semantic side: the query's embedding is
// compared with those of the conversation's newest semanticRows messages
// (every one is read: there is no approximate index, the column has no
// fixed dimension), so a conversation of 100,000 messages does not make a
// search read them all: 1,000 of 1,536 dimensions take about 8 ms (the
// recall set: recall@10 0.820 with 1,000, 0.821 with all).
const semanticRows = 1000

// recallCandidates is how many rows each ranking contributes to the fusion:
// twice the largest limit, enough for a row both rankings put in their
// upper half to add up; deeper ranks weigh almost nothing with rrfK 1.
const recallCandidates = 20

// rrfK is reciprocal-rank fusion's constant: a row's score is the sum over
// the rankings of 1/(rrfK + its rank there). It is small on purpose: the
// usual 60 (tuned for fusing many deep rankings) makes the first and the
// tenth rank almost equal (1/61 against 1/70), so any row both rankings
// put somewhere in their top 40 (small talk that shares a frequent word
// and looks vaguely alike) outscores the one row that alone holds the
// query's rare word, or the one row an embedding model ranks first. With
// 1, each ranking's best rows come first (1/2, 1/3, ...) and agreement
// between the two still lifts a row above either ranking's next ones.
// On the recall set (BENCHMARKS.md "Recall") recall@10 went from 0.723 to
// 0.821; k from 0 to 3 gave 0.806-0.827, 5 gave 0.798, 60 gave 0.723.
const rrfK = 1

// BM25's constants for the full-text ranking.
const (
	bm25K1 = "1.2::float8" // float8, not numeric: numeric arithmetic was a third of a search's time
	bm25B  = "0.75::float8"
)

// Hybrid recall over the user and assistant rows of one conversation is
// a full-text ranking (stemmed per language, stop words left out, scored
// by BM25 over the conversation: a rare word counts more than a frequent
// one, a short row more than a long one) and, with vectors, a ranking by
// cosine distance between embeddings, fused by reciprocal rank. Its
// statement is a front, which finds the full-text candidates (searchFront
// or autoRecallFront), and rankSQL. The front defines the CTEs scope (one
// row: conversation_id, before_id: only older rows are recalled), q and
// tq (queryCTEs), rows (n, the conversation's size), df (lexeme, df) and hits (id,
// lexeme, tf, len: a candidate row's term frequency and length). The
// full-text side reads each row's stored stems (messages.search_vector).
// The conversation is compared as text in the index lookups so that they
// go through the full-text index, whose keys carry the conversation
// (migrations 00013, 00022), never through the conversation's btree.
// The {placeholders} are the statement's parameters.

// queryCTEs define q (the query: its stems, which lexemes gives as a
// text[], and the conversation's key prefix) and tq (the stems as a
// tsquery).
func queryCTEs(lexemes string) string {
	return `q AS (SELECT ` + lexemes + ` AS lexemes, membot_search_prefix(scope.conversation_id) AS prefix FROM scope),
tq AS (SELECT coalesce(array_to_string(ARRAY(SELECT quote_literal(l) FROM unnest(q.lexemes) l), ' | ')::tsquery, ''::tsquery) AS q FROM q),
`
}

// sizeCTEs count the conversation's rows older than before_id, up to
// counted; beyond that the size is estimated.
func sizeCTEs(counted int) string {
	return strings.ReplaceAll(sizeSQL, "{counted}", strconv.Itoa(counted))
}

const sizeSQL = `ends AS MATERIALIZED (
	SELECT (SELECT m.id FROM messages m WHERE m.conversation_id = scope.conversation_id AND m.id < scope.before_id
		ORDER BY m.id DESC LIMIT 1) AS newest,
	(SELECT m.id FROM messages m WHERE m.conversation_id = scope.conversation_id AND m.id < scope.before_id
		ORDER BY m.id DESC OFFSET {counted} - 1 LIMIT 1) AS counted_from,
	(SELECT m.id FROM messages m WHERE m.conversation_id = scope.conversation_id ORDER BY m.id LIMIT 1) AS oldest
	FROM scope),
rows AS MATERIALIZED (
	SELECT CASE WHEN ends.counted_from IS NULL
		THEN (SELECT count(*) FROM messages m WHERE m.conversation_id = scope.conversation_id AND m.id < scope.before_id)
		ELSE ({counted} - 1) * (ends.newest - ends.oldest + 1)::float8 / greatest(ends.newest - ends.counted_from, 1) + 1
		END::float8 AS n
	FROM scope, ends),
`

// probeSQL looks up the rows of stem {stem} that {counted} (a condition on
// m.id, written m.id + 0 so that no btree is asked instead) through the
// full-text index, at most {limit} of them.
const probeSQL = `SELECT m.id, m.search_vector AS v FROM messages m
		WHERE m.conversation_id::text = scope.conversation_id::text AND m.role IN ('user', 'assistant')
		  AND {counted}
		  AND membot_search_keys(m.conversation_id, m.search_vector) @@ quote_literal(q.prefix || {stem})::tsquery
		LIMIT {limit}`

// searchFront is search_history's (see recentRows) over the conversation
// and rows of scope.
func searchFront(scope string) string {
	return `WITH scope AS (` + scope + `),
` + queryCTEs(`tsvector_to_array(to_tsvector(membot_ts_config({text}), {text}))`) + sizeCTEs(countedRows) + `recent_from AS (
	SELECT (SELECT m.id FROM messages m WHERE m.conversation_id = scope.conversation_id AND m.id < scope.before_id
		ORDER BY m.id DESC OFFSET {recent} - 1 LIMIT 1) AS id
	FROM scope),
recent_hits AS MATERIALIZED (
	SELECT m.id, u.lexeme, coalesce(array_length(u.positions, 1), 1) AS tf, length(m.search_vector) AS len
	FROM scope, recent_from, q, tq, messages m, unnest(ts_filter(setweight(m.search_vector, 'A', q.lexemes), '{a}')) u
	WHERE m.conversation_id = scope.conversation_id AND m.id < scope.before_id AND m.id >= coalesce(recent_from.id, 0)
	  AND m.search_vector @@ tq.q),
est AS MATERIALIZED (
	SELECT l.lexeme, count(h.id)::float8 AS seen,
		count(h.id) * rows.n / greatest(CASE WHEN recent_from.id IS NULL THEN rows.n ELSE {recent} END, 1) AS est
	FROM q, rows, recent_from, unnest(q.lexemes) l (lexeme) LEFT JOIN recent_hits h ON h.lexeme = l.lexeme
	GROUP BY l.lexeme, rows.n, recent_from.id),
probe AS (
	SELECT e.lexeme, p.id, p.v
	FROM scope, q, recent_from, est e, LATERAL (` + strings.NewReplacer("{counted}", "m.id + 0 < recent_from.id", "{stem}", "e.lexeme",
		"{limit}", "{probe} + 1").Replace(probeSQL) + `) p
	WHERE recent_from.id IS NOT NULL AND e.est <= {lookup}),
probed AS (SELECT lexeme, count(*) AS n FROM probe GROUP BY lexeme),
df AS MATERIALIZED (
	SELECT e.lexeme, CASE WHEN recent_from.id IS NULL OR e.est <= {lookup} AND coalesce(p.n, 0) <= {probe}
		THEN e.seen + coalesce(p.n, 0) ELSE greatest(e.est, e.seen + coalesce(p.n, 0)) END AS df
	FROM est e LEFT JOIN probed p USING (lexeme), recent_from),
old AS (
	SELECT DISTINCT ON (p.id) p.id, p.v FROM probe p JOIN probed USING (lexeme)
	WHERE probed.n <= {probe} ORDER BY p.id),
hits AS (
	SELECT id, lexeme, tf, len FROM recent_hits
	UNION ALL
	SELECT o.id, u.lexeme, coalesce(array_length(u.positions, 1), 1), length(o.v)
	FROM old o, q, unnest(ts_filter(setweight(o.v, 'A', q.lexemes), '{a}')) u),
`
}

// autoRecallFront is a turn's own recall (see autoRecallRare): rows of the
// conversation older than the rows the model sees anyway (its newest
// {window}, the turn's row among them) and than the turn's row (on a
// retry, the steps stored after it may have pushed it out of the window).
// turn is a query of one row: conversation_id, id (the turn's row) and v
// (the row's stems). So the window read is the newest {window} - 1 rows
// but the turn's, and every query stem counts once more for the turn's
// row itself. The query is turnLexemesSQL; a stem's count in the window
// comes from the window's stored stems: each row's stems among the
// query's (ts_filter), all rows' in one array, each query stem's places
// in it (a row holds a stem once). Matching every stem against every row,
// as a join, cost more than the rest of the statement. The separator is a
// control character, which no lexeme holds. Most turns have nothing to
// rank; they learn it from autoRecallFound first.
func autoRecallFront(turn string) string {
	return `WITH turn AS (` + turn + `),
` + windowCTEs("m.id, m.search_vector AS v") + queryCTEs(turnLexemesSQL) + `seen AS MATERIALIZED (
	SELECT l.lexeme, 1 + coalesce(cardinality(array_positions(w.found, l.lexeme)), 0) AS n
	FROM (SELECT string_to_array(string_agg(array_to_string(tsvector_to_array(
			ts_filter(setweight(w.v, 'A', q.lexemes), '{a}')), E'\x01'), E'\x01'), E'\x01') AS found
		FROM q, win w) w, q, unnest(q.lexemes) l (lexeme)),
probe AS (
	SELECT s.lexeme, s.n, p.id, p.v
	FROM scope, q, seen s, LATERAL (` + strings.NewReplacer("{counted}", "m.id + 0 < scope.before_id", "{stem}", "s.lexeme",
		"{limit}", "{rare} + 1").Replace(probeSQL) + `) p
	WHERE scope.before_id > 0 AND s.n <= {rare}),
df AS MATERIALIZED (
	SELECT lexeme, (n + count(*))::float8 AS df FROM probe GROUP BY lexeme, n HAVING n + count(*) <= {rare}),
hits AS (
	SELECT p.id, u.lexeme, coalesce(array_length(u.positions, 1), 1) AS tf, length(p.v) AS len
	FROM probe p JOIN df USING (lexeme), unnest(ts_filter(setweight(p.v, 'A', ARRAY[p.lexeme]), '{a}')) u),
` + autoRecallSizeSQL
}

// windowCTEs define win, the rows of the turn's window but its own (their
// columns cols of messages m), and scope (conversation_id, before_id: the
// rows older than the window and the turn's row, none when the
// conversation is no longer than the window; window_from, the window's
// oldest row; turn_id). The window is read as lastMessagesQuery reads it,
// by a range of conversations, so that no plan walks the primary key.
func windowCTEs(cols string) string {
	return `win AS MATERIALIZED (
	SELECT w.* FROM turn, LATERAL (
		SELECT ` + cols + ` FROM messages m
		WHERE m.conversation_id >= turn.conversation_id AND m.conversation_id <= turn.conversation_id
		  AND m.id IS DISTINCT FROM turn.id
		ORDER BY m.conversation_id DESC, m.id DESC LIMIT {window} - 1) w),
scope AS (
	SELECT turn.conversation_id, CASE WHEN (SELECT count(*) FROM win) < {window} - 1 THEN 0
		ELSE coalesce(least((SELECT min(id) FROM win), turn.id), 9223372036854775807) END AS before_id,
		(SELECT min(id) FROM win) AS window_from, turn.id AS turn_id
	FROM turn),
`
}

// autoRecallCounted is the rows of a stem autoRecallFront counts: the
// turn's own, the window's and those older than both. A retried turn's
// row may be older than its window (the steps stored after it pushed it
// out): the rows between the two are in neither, and counted, they could
// make a stem look frequent that the ranking finds rare.
const autoRecallCounted = `(m.id + 0 < scope.before_id OR m.id + 0 >= scope.window_from OR m.id + 0 = scope.turn_id)`

// turnLexemesSQL is a turn's query for auto-recall: the stems of its
// first {words} words of two letters or more, as searchWords keeps them
// (a lone digit is not a telling word).
const turnLexemesSQL = `ARRAY(SELECT u.lexeme FROM turn, unnest(turn.v) u
		WHERE char_length(u.lexeme) >= 2 ORDER BY u.positions[1], u.lexeme LIMIT {words})`

// autoRecallFound tells whether the turn's auto-recall (autoRecallFront
// over turn, the same rows) has anything to rank: a row older than the
// window shares a stem of the turn's that the conversation, the turn's
// row included, uses at most autoRecallRare times, counting the rows the
// ranking counts (autoRecallCounted). It looks each stem up once through
// the full-text index (at most autoRecallRare + 1 rows), except the stems
// conversation_frequent_stems lists for the conversation (migration
// 00027): those it found used more often before, which it writes there
// as it finds them. So it reads no window's stems (about 0.1 ms of every
// reply) and no frequent stem's many rows. It writes them only while the
// conversation's stems_version is the one it counted under (versions,
// read in the statement's snapshot and again under a share lock, which
// a delete committed meanwhile has raised: migration 00028). It never
// waits for that lock: while a delete holds the row, it writes nothing
// and a later turn learns the stem (a turn that waited there would wait
// out a whole purge or `admin forget`, holding its own locks meanwhile).
func autoRecallFound(turn string) string {
	return `WITH turn AS (` + turn + `),
` + windowCTEs("m.id") + queryCTEs(turnLexemesSQL) + `todo AS MATERIALIZED (
	SELECT l.lexeme FROM scope, q, unnest(q.lexemes) l (lexeme)
	WHERE NOT (SELECT EXISTS (SELECT FROM conversation_frequent_stems f
		WHERE f.conversation_id = scope.conversation_id AND f.lexeme = l.lexeme))),
uses AS MATERIALIZED (
	SELECT t.lexeme, p.n, p.oldest
	FROM scope, q, todo t, LATERAL (SELECT count(*) AS n, min(p.id) AS oldest FROM (` +
		strings.NewReplacer("{counted}", autoRecallCounted, "{stem}", "t.lexeme", "{limit}", "{rare} + 1").Replace(probeSQL) + `) p) p),
learning AS MATERIALIZED (SELECT u.lexeme FROM uses u WHERE u.n > {rare}),
versions AS MATERIALIZED (
	SELECT c.stems_version AS counted,
		(SELECT l.stems_version FROM conversations l WHERE l.id = c.id FOR SHARE SKIP LOCKED) AS now
	FROM scope, conversations c WHERE c.id = scope.conversation_id AND EXISTS (SELECT FROM learning)),
learned AS (
	INSERT INTO conversation_frequent_stems (conversation_id, lexeme)
	SELECT scope.conversation_id, l.lexeme FROM scope, learning l, versions v WHERE v.counted = v.now
	ORDER BY l.lexeme -- two turns learning at once wait for each other in one order, not in a deadlock
	ON CONFLICT DO NOTHING)
SELECT EXISTS (SELECT FROM scope, uses u WHERE u.n <= {rare} AND u.oldest < scope.before_id) AND {limit}::int > 0`
}

// autoRecallSizeSQL is auto-recall's rows (n, the conversation's size for
// BM25), estimated from how densely the window's rows sit among the ids
// (a window of fewer than 2 rows, HISTORY_LIMIT 1 or 2: every id the
// conversation spans, the turn's stored row among them), and read only when a rare
// stem was found (df has rows): most turns rank nothing. Counting the
// rows instead read them all under the generic plan (a bitmap scan of the
// conversation, sorted: 0.6 ms a turn at 2,000 messages, growing with the
// conversation).
const autoRecallSizeSQL = `ends AS MATERIALIZED (
	SELECT (SELECT m.id FROM messages m WHERE m.conversation_id = scope.conversation_id ORDER BY m.id LIMIT 1) AS oldest,
		(SELECT m.id FROM messages m WHERE m.conversation_id = scope.conversation_id ORDER BY m.id DESC LIMIT 1) AS newest,
		(SELECT count(*) FROM win) AS seen, (SELECT max(id) - min(id) FROM win) AS spread
	FROM scope WHERE EXISTS (SELECT FROM df)),
rows AS MATERIALIZED (
	SELECT (CASE WHEN ends.seen >= 2 AND ends.spread > 0
		THEN (ends.seen - 1) * (ends.newest - ends.oldest + 1)::float8 / ends.spread + 1
		ELSE ends.newest - ends.oldest + 1 END)::float8 AS n
	FROM ends),
`

// rankSQL ranks the front's hits by BM25 and, with vectors, the
// conversation's newest embeddings by their distance to {vec}, fuses the
// two and returns the best {limit} rows. Short rows are shown whole, long
// ones as their best fragments; with marks, the words that matched are
// marked.
func rankSQL(front string, vectors, marks bool) string {
	// With one ranking, fusion keeps its order: its best {limit} rows.
	sem, fused := "", `fused AS (SELECT id, 1.0 / ({rrfK} + r) AS score FROM fts WHERE r <= {limit})
`
	if vectors {
		// sem_from is found once: as a condition of the join, a plan made
		// on a new bot's empty tables ran it again for every embedding it
		// compared (17 ms a turn in the recall set, growing as the square
		// of the conversation).
		sem = `qv AS MATERIALIZED (SELECT {vec}::text::vector AS v WHERE {vec}::text IS NOT NULL),
sem_from AS MATERIALIZED (
	SELECT coalesce((SELECT x.message_id FROM message_embeddings x
		WHERE x.conversation_id = scope.conversation_id AND x.model = {model} AND x.message_id < scope.before_id
		ORDER BY x.message_id DESC OFFSET {semantic} - 1 LIMIT 1), 0) AS id
	FROM scope),
sem AS (
	SELECT e.message_id AS id, row_number() OVER (ORDER BY e.embedding <=> qv.v, e.message_id DESC) AS r
	FROM scope, qv, sem_from, message_embeddings e
	WHERE e.conversation_id = scope.conversation_id AND e.model = {model}
	  AND e.message_id < scope.before_id AND e.message_id >= sem_from.id
	ORDER BY r LIMIT {candidates}),
`
		fused = `fused AS (
	SELECT id, sum(1.0 / ({rrfK} + r)) AS score
	FROM (SELECT id, r FROM fts UNION ALL SELECT id, r FROM sem) ranked
	GROUP BY id ORDER BY score DESC, id DESC LIMIT {limit})
`
	}
	return front + `avglen AS (SELECT greatest(avg(len)::float8, 1) AS a FROM (SELECT DISTINCT id, len FROM hits) d),
fts AS (
	SELECT h.id, row_number() OVER (ORDER BY sum(
		ln(1 + (greatest(rows.n, df.df) - df.df + 0.5) / (df.df + 0.5)) * h.tf * ({k1} + 1)
		/ (h.tf + {k1} * (1 - {b} + {b} * h.len / avglen.a))) DESC, h.id DESC) AS r
	FROM hits h JOIN df USING (lexeme), rows, avglen
	GROUP BY h.id ORDER BY r LIMIT {candidates}),
` + sem + fused + `SELECT m.id, m.role, m.created_at, CASE WHEN ` + strconv.FormatBool(marks) + ` OR length(m.content) > 400
	THEN ts_headline(membot_ts_config(membot_plain_text(m.content)), membot_plain_text(m.content), (SELECT q FROM tq),
		CASE WHEN length(m.content) <= 400 THEN 'HighlightAll=true, StartSel=«, StopSel=»'
		ELSE 'MaxFragments=2, MaxWords=30, MinWords=10, StartSel=«, StopSel=», FragmentDelimiter=" … "' END)
	ELSE membot_plain_text(m.content) END AS text
FROM fused f JOIN messages m ON m.id = f.id
ORDER BY f.score DESC, m.id DESC`
}

// recallParams fills in rankSQL's placeholders: the statement's parameters
// and the constants above.
func recallParams(sql string, text, limit, vec, model string) string {
	return strings.NewReplacer("{text}", text, "{limit}", limit, "{vec}", vec, "{model}", model,
		"{probe}", strconv.Itoa(probeRows), "{lookup}", strconv.Itoa(lookupRows), "{recent}", strconv.Itoa(recentRows),
		"{rare}", strconv.Itoa(autoRecallRare), "{words}", strconv.Itoa(maxSearchWords), "{semantic}", strconv.Itoa(semanticRows),
		"{candidates}", strconv.Itoa(recallCandidates), "{rrfK}", strconv.Itoa(rrfK),
		"{k1}", bm25K1, "{b}", bm25B).Replace(sql)
}

// searchSQL is search_history's statement over conversation $1 before row
// $2, with and without vectors.
var searchSQL = [2]string{searchStatement(false), searchStatement(true)}

func searchStatement(vectors bool) string {
	return recallParams(rankSQL(searchFront(`SELECT $1::uuid AS conversation_id, $2::bigint AS before_id`), vectors, true),
		"$3", "$4", "$5", "$6")
}

// vectorsIndex is the index of a [2]string of statements for vectors.
func vectorsIndex(vectors bool) int {
	if vectors {
		return 1
	}
	return 0
}

// maxSearchWords bounds the words of one query.
const maxSearchWords = 12

// SearchMessages finds the user and assistant rows of a conversation that
// best match the search (see searchFront and rankSQL), best first.
func (s *Store) SearchMessages(ctx context.Context, q Search) ([]Snippet, error) {
	words := searchWords(q.Text)
	if words == "" && q.Embedding == nil {
		return nil, nil
	}
	if q.BeforeID <= 0 {
		q.BeforeID = 1<<63 - 1
	}
	vectors := s.Vectors()
	var found []Snippet
	batch := &pgx.Batch{}
	batch.Queue(genericPlansSQL)
	batch.Queue(searchSQL[vectorsIndex(vectors)], recallArgs(vectors, []any{q.ConversationID, q.BeforeID, words, q.Limit},
		q.Embedding, q.EmbeddingModel)...).Query(func(rows pgx.Rows) error {
		var err error
		found, err = pgx.CollectRows(rows, pgx.RowToStructByName[Snippet])
		return err
	})
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return nil, fmt.Errorf("search messages: %w", translate(err))
	}
	return found, nil
}

// searchWords keeps the first maxSearchWords distinct words of free text,
// letters and digits only, one-letter words left out; PostgreSQL stems
// them (membot_search_query).
func searchWords(text string) string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	seen := map[string]bool{}
	var kept []string
	for _, w := range words {
		if seen[w] || utf8.RuneCountInString(w) < 2 || len(kept) == maxSearchWords {
			continue
		}
		seen[w] = true
		kept = append(kept, w)
	}
	return strings.Join(kept, " ")
}

// recallArgs are the arguments of a recall statement: the vector's two only when
// the statement has them.
func recallArgs(vectors bool, args []any, embedding []float32, model string) []any {
	if vectors {
		args = append(args, vectorLiteral(embedding), model)
	}
	return args
}

// vectorLiteral is pgvector's text form of v, or nil (SQL NULL) for none.
func vectorLiteral(v []float32) any {
	if v == nil {
		return nil
	}
	b := make([]byte, 0, 10*len(v)+2)
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, float64(x), 'g', -1, 32)
	}
	return string(append(b, ']'))
}
