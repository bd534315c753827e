package memory

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
)

// Snippet is a message found by SearchMessages.
type Snippet struct {
	MessageID int64     `db:"id"`
	Role      Role      `db:"role"`
	CreatedAt time.Time `db:"created_at"`
	Text      string    `db:"text"` // the matching fragments, matches marked «like this»
}

// searchVector is the indexed expression (see migration 00003): it must be
// written exactly like this for the index to serve the query.
const searchVector = `to_tsvector('simple'::regconfig, membot_plain_text(m.content))`

// searchSQL finds the user and assistant rows of conversation $1 older than
// row $3 that contain any of the words $2 (as words or word beginnings),
// the rows with the most matches first. Short rows are shown whole, long
// ones as their best fragments.
const searchSQL = `SELECT m.id, m.role, m.created_at,
	ts_headline('simple'::regconfig, membot_plain_text(m.content), q,
		CASE WHEN length(m.content) <= 400 THEN 'HighlightAll=true, StartSel=«, StopSel=»'
		ELSE 'MaxFragments=2, MaxWords=30, MinWords=10, StartSel=«, StopSel=», FragmentDelimiter=" … "' END) AS text
FROM messages m, to_tsquery('simple'::regconfig, $2) q
WHERE m.conversation_id = $1 AND m.role IN ('user', 'assistant') AND m.id < $3
  AND ` + searchVector + ` @@ q
ORDER BY ts_rank(` + searchVector + `, q) DESC, m.id DESC
LIMIT $4`

// maxSearchWords bounds the words of one query.
const maxSearchWords = 12

// SearchMessages does a full-text search ('simple' configuration, so any
// language) over one conversation's user and assistant rows older than
// beforeID (0 for all), and returns the best limit snippets.
func (s *Store) SearchMessages(ctx context.Context, conversationID, query string, beforeID int64, limit int) ([]Snippet, error) {
	tsquery := anyWordQuery(query)
	if tsquery == "" {
		return nil, nil
	}
	if beforeID <= 0 {
		beforeID = 1<<63 - 1
	}
	rows, err := s.pool.Query(ctx, searchSQL, conversationID, tsquery, beforeID, limit)
	if err != nil {
		return nil, fmt.Errorf("search messages: %w", translate(err))
	}
	found, err := pgx.CollectRows(rows, pgx.RowToStructByName[Snippet])
	if err != nil {
		return nil, fmt.Errorf("search messages: %w", translate(err))
	}
	return found, nil
}

// anyWordQuery turns free text into a tsquery that matches any of its words,
// longer words also as beginnings ("remind" finds "reminders"):
// 'cat' | 'remind':*. One-letter words are left out. Only letters and digits
// are kept, so the result is always valid tsquery syntax.
func anyWordQuery(text string) string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	seen := map[string]bool{}
	var terms []string
	for _, w := range words {
		n := utf8.RuneCountInString(w)
		if seen[w] || n < 2 || len(terms) == maxSearchWords {
			continue
		}
		seen[w] = true
		term := "'" + w + "'"
		if n >= 4 {
			term += ":*"
		}
		terms = append(terms, term)
	}
	return strings.Join(terms, " | ")
}
