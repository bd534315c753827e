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

// recallCandidates is how many rows each ranking contributes to the fusion.
const recallCandidates = 40

// rrfK is reciprocal-rank fusion's constant: a row's score is the sum over
// the rankings of 1/(rrfK + its rank there).
const rrfK = 60

// recallSQL is hybrid recall over the user and assistant rows of one
// conversation: a full-text ranking (stemmed per language, stop words
// left out, ts_rank_cd so words close together count more) and, with
// vectors, a ranking by cosine distance between embeddings, fused by
// reciprocal rank. scope is a query of one row (conversation_id,
// before_id); the {placeholders} are the statement's parameters.
// Short rows are shown whole, long ones as their best fragments.
func recallSQL(scope string, vectors bool, text, limit, vec, model string) string {
	sem, union := "", ""
	if vectors {
		sem = `sem AS (
	SELECT e.message_id AS id, row_number() OVER (ORDER BY e.embedding <=> {vec}::text::vector, e.message_id DESC) AS r
	FROM scope, message_embeddings e
	WHERE {vec}::text IS NOT NULL AND e.conversation_id = scope.conversation_id AND e.model = {model}
	  AND e.message_id < scope.before_id
	ORDER BY r LIMIT ` + strconv.Itoa(recallCandidates) + `),
`
		union = ` UNION ALL SELECT id, r FROM sem`
	}
	sql := `WITH scope AS (` + scope + `),
q AS (SELECT membot_search_query({text}) AS q, membot_search_query({text}, membot_search_prefix(scope.conversation_id)) AS keys FROM scope),
fts AS (
	SELECT m.id, row_number() OVER (ORDER BY ts_rank_cd(membot_search_vector(m.content), q.q, 1) DESC, m.id DESC) AS r
	FROM scope, q, messages m
	WHERE m.conversation_id = scope.conversation_id AND m.role IN ('user', 'assistant') AND m.id < scope.before_id
	  AND membot_search_keys(m.conversation_id, m.content) @@ q.keys
	ORDER BY r LIMIT ` + strconv.Itoa(recallCandidates) + `),
` + sem + `fused AS (
	SELECT id, sum(1.0 / (` + strconv.Itoa(rrfK) + ` + r)) AS score
	FROM (SELECT id, r FROM fts` + union + `) ranked
	GROUP BY id ORDER BY score DESC, id DESC LIMIT {limit})
SELECT m.id, m.role, m.created_at,
	ts_headline(membot_ts_config(membot_plain_text(m.content)), membot_plain_text(m.content), q.q,
		CASE WHEN length(m.content) <= 400 THEN 'HighlightAll=true, StartSel=«, StopSel=»'
		ELSE 'MaxFragments=2, MaxWords=30, MinWords=10, StartSel=«, StopSel=», FragmentDelimiter=" … "' END) AS text
FROM fused f JOIN messages m ON m.id = f.id, q
ORDER BY f.score DESC, m.id DESC`
	return strings.NewReplacer("{text}", text, "{limit}", limit, "{vec}", vec, "{model}", model).Replace(sql)
}

// searchSQL is recallSQL over conversation $1 before row $2.
func searchSQL(vectors bool) string {
	return recallSQL(`SELECT $1::uuid AS conversation_id, $2::bigint AS before_id`, vectors, "$3", "$4", "$5", "$6")
}

// maxSearchWords bounds the words of one query.
const maxSearchWords = 12

// SearchMessages finds the user and assistant rows of a conversation that
// best match the search (see recallSQL), best first.
func (s *Store) SearchMessages(ctx context.Context, q Search) ([]Snippet, error) {
	words := searchWords(q.Text)
	if words == "" && q.Embedding == nil {
		return nil, nil
	}
	if q.BeforeID <= 0 {
		q.BeforeID = 1<<63 - 1
	}
	vectors := s.Vectors()
	rows, err := s.pool.Query(ctx, searchSQL(vectors), recallArgs(vectors, []any{q.ConversationID, q.BeforeID, words, q.Limit},
		q.Embedding, q.EmbeddingModel)...)
	if err != nil {
		return nil, fmt.Errorf("search messages: %w", translate(err))
	}
	found, err := pgx.CollectRows(rows, pgx.RowToStructByName[Snippet])
	if err != nil {
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

// recallArgs are the arguments of recallSQL: the vector's two only when
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
