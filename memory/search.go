package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/membot/membot/memory/pg"
)

// Snippet is a message found by SearchMessages or by a turn's auto-recall.
type Snippet struct {
	MessageID int64     `db:"id"`
	Role      Role      `db:"role"`
	WrittenAt time.Time `db:"written_at"` // Message.WrittenAt
	Text      string    `db:"text"`       // the matching fragments, matches marked «like this»
	// What a user row's metadata says of who wrote it, as Message's
	// fields of the same names: its author, whether it was forwarded, the
	// inline bot it was sent via, its files (JSON).
	AuthorID  int64           `db:"author_id"`
	Forwarded bool            `db:"forwarded"`
	ViaBot    string          `db:"via_bot"`
	Media     json.RawMessage `db:"media"`
	// Hit is the row's rank among what the query found, 1 for the best;
	// 0 for a row shown beside a hit (its neighbour).
	Hit int `db:"-"`
}

// Search is what SearchMessages looks for.
type Search struct {
	ConversationID string
	Text           string // free text: its words are stemmed in their language
	// Queries are more free texts searched alongside Text (the model may
	// name a thing several ways); their rankings are fused.
	Queries  []string
	BeforeID int64 // only rows older than this one; 0 for all
	Limit    int   // how many hits; each may bring its neighbours
	// Chars bounds the texts of the result, neighbours included; 0:
	// charsPerHit for each of Limit.
	Chars int
	// From and To, when To is not zero, are a time the query names: the
	// rows written then come before the others.
	From, To time.Time
	// Embedding, of Text by EmbeddingModel, adds semantic search over the
	// message embeddings, fused with the full-text ranking. Nil, or a store
	// without pgvector: full-text alone.
	Embedding      []float32
	EmbeddingModel string
}

// searchSQL is search_history's statement over a conversation before a
// row, without and with vectors (sql/search.sql explains them).
var searchSQL = recallStatements{fullText: searchFullTextSQL, hybrid: searchHybridSQL}

// recallStatements are a recall statement without and with vectors.
type recallStatements struct{ fullText, hybrid string }

// with is the statement to run and its arguments, params and, when emb
// is set (a store with vectors and a query's embedding), emb and its model.
func (r recallStatements) with(params any, emb []float32, model string) (string, pg.Args) {
	if emb == nil {
		return r.fullText, pg.Named(params)
	}
	return r.hybrid, withEmbedding(params, emb, model)
}

const (
	// maxSearchWords bounds the words of one query (auto-recall's
	// statements take as many of a turn's stems: 12).
	maxSearchWords = 12
	// maxQueries bounds the queries of one search.
	maxQueries = 5
	// candidates is how many rows each query's ranking gives the fusion
	// (the statements rank at most 20).
	candidates = 20
	// charsPerHit is the result's budget for each hit asked for: limit 10
	// is shown in at most 4,000 characters, neighbours included.
	charsPerHit = 400
	// shortRow is the length under which a neighbour says too little
	// alone ("ok", "Got it."): the row beyond it is shown too.
	shortRow = 40
)

// SearchMessages finds the user and assistant rows of a conversation that
// best match the search (sql/search.sql), each with the rows around it
// while the result fits in its characters: blocks of neighbouring rows,
// oldest first within a block, the block of the best hit first.
func (s Index) SearchMessages(ctx context.Context, q Search) ([]Snippet, error) {
	var queries []string
	for _, t := range append([]string{q.Text}, q.Queries...) {
		if w := searchWords(t); w != "" && len(queries) < maxQueries {
			queries = append(queries, w)
		}
	}
	if len(queries) == 0 && q.Embedding == nil {
		return nil, nil
	}
	if len(queries) == 0 {
		queries = []string{""}
	}
	if q.BeforeID <= 0 {
		q.BeforeID = 1<<63 - 1
	}
	if q.Limit <= 0 {
		return nil, nil
	}
	vectors := s.Vectors()
	// One query, no time: its best Limit rows are the hits (each row
	// ranked costs its fragments); otherwise more, for the fusion or the
	// time to choose from.
	want := candidates
	if len(queries) == 1 && q.To.IsZero() {
		want = min(q.Limit, candidates)
	}
	rankings := make([][]Snippet, len(queries))
	batch := &pgx.Batch{}
	batch.Queue(genericPlansSQL)
	for i, words := range queries {
		emb := q.Embedding
		if i > 0 {
			emb = nil // the embedding is Text's
		}
		if !vectors {
			emb = nil // without an embedding the hybrid statement ranks as the full-text one, at more cost
		}
		params := searchParams{ConversationID: q.ConversationID, BeforeID: q.BeforeID, Words: words, Limit: want}
		batch.Queue(searchSQL.with(params, emb, q.EmbeddingModel)).Query(func(rows pgx.Rows) error {
			var err error
			rankings[i], err = pgx.CollectRows(rows, pgx.RowToStructByName[Snippet])
			return err
		})
	}
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return nil, fmt.Errorf("search messages: %w", translate(err))
	}
	hits := fuseRankings(rankings, q.From, q.To)
	if len(hits) == 0 {
		return nil, nil
	}
	if len(hits) > q.Limit {
		hits = hits[:q.Limit]
	}
	budget := q.Chars
	if budget <= 0 {
		budget = charsPerHit * q.Limit
	}
	return s.inContext(ctx, q.ConversationID, q.BeforeID, hits, budget)
}

// inContext shows hits, best first, each with the rows beside it older
// than beforeID, within budget characters (arrange).
func (s base) inContext(ctx context.Context, conversationID string, beforeID int64, hits []Snippet, budget int) ([]Snippet, error) {
	around, err := s.neighbours(ctx, conversationID, beforeID, hits)
	if err != nil {
		return nil, err
	}
	return arrange(hits, around, budget), nil
}

// fuseRankings fuses the queries' rankings by reciprocal rank (k 1, as
// the statements fuse theirs), best first; a row keeps the text of the
// ranking that placed it highest. With a time (to not zero), the rows
// written in [from, to) come first, each part in the fused order: the
// time the query names filters, and the rest fills what it leaves.
func fuseRankings(rankings [][]Snippet, from, to time.Time) []Snippet {
	score := map[int64]float64{}
	best := map[int64]int{}
	index := map[int64]int{}
	var order []Snippet
	for _, ranked := range rankings {
		for r, s := range ranked {
			if i, ok := index[s.MessageID]; !ok {
				index[s.MessageID] = len(order)
				order = append(order, s)
				best[s.MessageID] = r
			} else if r < best[s.MessageID] {
				best[s.MessageID] = r
				order[i].Text = s.Text
			}
			score[s.MessageID] += 1 / float64(2+r)
		}
	}
	inTime := func(s Snippet) bool {
		return !to.IsZero() && !s.WrittenAt.Before(from) && s.WrittenAt.Before(to)
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if ia, ib := inTime(a), inTime(b); ia != ib {
			return ia
		}
		if score[a.MessageID] != score[b.MessageID] {
			return score[a.MessageID] > score[b.MessageID]
		}
		return a.MessageID > b.MessageID
	})
	return order
}

// neighbour is a row beside a hit (searchNeighbours).
type neighbour struct {
	Hit  int64 `db:"hit"`
	Side int   `db:"side"`
	Snippet
}

// neighbours reads the rows beside each of hits (searchNeighbours).
func (s base) neighbours(ctx context.Context, conversationID string, beforeID int64, hits []Snippet) ([]neighbour, error) {
	ids := make([]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.MessageID
	}
	var around []neighbour
	batch := &pgx.Batch{}
	batch.Queue(genericPlansSQL)
	batch.Queue(searchNeighboursSQL, conversationID, ids, beforeID).Query(func(rows pgx.Rows) error {
		var err error
		around, err = pgx.CollectRows(rows, pgx.RowToStructByName[neighbour])
		return err
	})
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return nil, fmt.Errorf("search neighbours: %w", translate(err))
	}
	return around, nil
}

// arrange shows hits, best first, each with the rows next to it (around:
// each hit's rows by side, nearest first; the second of a side only when
// the first is short), within budget characters: every hit that fits
// first, then the neighbours of each hit in the hits' order. Rows that
// touch form one block, shown oldest first; blocks come in the order of
// their best hit.
func arrange(hits []Snippet, around []neighbour, budget int) []Snippet {
	shown := map[int64]Snippet{}
	rank := map[int64]int{} // a shown row's block: its best hit's rank
	used := 0
	show := func(s Snippet, r int) bool {
		if _, ok := shown[s.MessageID]; ok {
			return true
		}
		n := utf8.RuneCountInString(s.Text) + lineOverhead
		if used+n > budget && len(shown) > 0 {
			return false
		}
		used += n
		shown[s.MessageID] = s
		rank[s.MessageID] = r
		return true
	}
	for r, h := range hits {
		h.Hit = r + 1
		show(h, r)
	}
	bySide := map[[2]int64][]neighbour{}
	for _, n := range around {
		k := [2]int64{n.Hit, int64(n.Side)}
		bySide[k] = append(bySide[k], n)
	}
	for r, h := range hits {
		if _, ok := shown[h.MessageID]; !ok {
			continue
		}
		for _, side := range []int64{-1, 1} {
			for i, n := range bySide[[2]int64{h.MessageID, side}] {
				if i > 0 && utf8.RuneCountInString(bySide[[2]int64{h.MessageID, side}][i-1].Text) >= shortRow {
					break
				}
				if !show(n.Snippet, r) {
					break
				}
			}
		}
	}
	// Blocks: rows whose ids are neighbours in what searchNeighbours
	// read (a hit and its rows) are joined; a block takes its best rank.
	parent := map[int64]int64{}
	var find func(int64) int64
	find = func(x int64) int64 {
		if p, ok := parent[x]; ok && p != x {
			parent[x] = find(p)
			return parent[x]
		}
		return x
	}
	union := func(a, b int64) {
		if _, ok := shown[a]; !ok {
			return
		}
		if _, ok := shown[b]; !ok {
			return
		}
		parent[find(a)] = find(b)
	}
	for _, n := range around {
		union(n.MessageID, n.Hit)
	}
	blockRank := map[int64]int{}
	for id := range shown {
		root := find(id)
		if r, ok := blockRank[root]; !ok || rank[id] < r {
			blockRank[root] = rank[id]
		}
	}
	out := make([]Snippet, 0, len(shown))
	for _, s := range shown {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		ri, rj := blockRank[find(out[i].MessageID)], blockRank[find(out[j].MessageID)]
		if ri != rj {
			return ri < rj
		}
		return out[i].MessageID < out[j].MessageID
	})
	return out
}

// lineOverhead is what a result line adds to a row's text: its date and
// role ("[2006-01-02 15:04] assistant: ").
const lineOverhead = 32

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

// searchParams are the arguments of searchFullText, and of searchHybrid
// with the query's embedding (withEmbedding).
type searchParams struct {
	ConversationID string `db:"conversation_id"`
	BeforeID       int64  `db:"before_id"`
	Words          string `db:"words"`
	Limit          int    `db:"recall_limit"`
}

// withEmbedding are the arguments of a recall statement with vectors:
// params, the query's embedding and its model.
func withEmbedding(params any, embedding []float32, model string) pg.Args {
	return pg.Named(params, embeddingParams{Embedding: vectorLiteral(embedding), Model: model})
}

// embeddingParams are a query's embedding and its model, the arguments a
// recall statement with vectors takes beside its own.
type embeddingParams struct {
	Embedding any    `db:"embedding"`
	Model     string `db:"embedding_model"`
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
	searchFullTextSQL   = statement("searchFullText")
	searchHybridSQL     = statement("searchHybrid")
	searchNeighboursSQL = statement("searchNeighbours")
)
