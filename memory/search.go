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

// searchSQL is search_history's statement over conversation $1 before row
// $2, without and with vectors (sql/search.sql explains them).
var searchSQL = [2]string{searchFullTextSQL, searchHybridSQL}

// vectorsIndex is the index of a [2]string of statements for vectors.
func vectorsIndex(vectors bool) int {
	if vectors {
		return 1
	}
	return 0
}

// maxSearchWords bounds the words of one query (auto-recall's statements
// take as many of a turn's stems: 12).
const maxSearchWords = 12

// SearchMessages finds the user and assistant rows of a conversation that
// best match the search (sql/search.sql), best first.
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

// The statements of this file, whole in sql/search.sql.
var (
	searchFullTextSQL = statement("searchFullText")
	searchHybridSQL   = statement("searchHybrid")
)
