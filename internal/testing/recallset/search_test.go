package recallset_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/membot/membot/internal/stamp"
	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/pgtest"
	"github.com/membot/membot/internal/testing/recallset"
	"github.com/membot/membot/memory"
)

// TestRecallSearchOnly is the search_history half of the benchmark in a
// quarter of a minute (the whole benchmark takes 7-18 minutes), for work on the ranking:
//
//	RECALLBENCH=search scripts/test.sh -run TestRecallSearchOnly -v ./internal/testing/recallset
//
// The full set's rows are stored directly (each user turn stamped as the
// bot stamps it, each answered "Got it."), embedded by the fake, and every
// question is searched with its own words, as TestRecallBenchmark's first
// search does (its figures agree). It logs recall@5/@10 with embeddings
// and full-text alone, per kind, and for each missed evidence turn where
// the two rankings had it and what took the first ten places instead.
func TestRecallSearchOnly(t *testing.T) {
	if os.Getenv("RECALLBENCH") != "search" {
		t.Skip("RECALLBENCH=search runs it")
	}
	pgtest.RequireVectors(t)
	ctx := context.Background()
	store, err := memory.Open(ctx, pgtest.New(t), 4)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if ok, err := store.Index().EnableVectors(ctx); !ok || err != nil {
		t.Fatalf("pgvector: %v, %v", ok, err)
	}
	type conv struct {
		id   string
		ids  []int64 // the user row of each turn
		turn map[int64]int
		c    recallset.Conversation
	}
	var convs []conv
	for ci, c := range recallset.Generate(15, recallset.Full) {
		id, err := store.CurrentConversation(ctx, memory.Chat{ID: int64(7000 + ci)}, int64(7000+ci))
		if err != nil {
			t.Fatal(err)
		}
		var msgs []memory.Message
		for _, turn := range c.Turns {
			msgs = append(msgs, memory.Message{Role: memory.RoleUser, Content: stamp.Add(turn.At, time.UTC, turn.Text)},
				memory.Message{Role: memory.RoleAssistant, Content: "Got it."})
		}
		all, err := store.AppendMessages(ctx, id, msgs...)
		if err != nil {
			t.Fatal(err)
		}
		cv := conv{id: id, turn: map[int64]int{}, c: c}
		for i := 0; i < len(all); i += 2 {
			cv.ids = append(cv.ids, all[i])
			cv.turn[all[i]] = i / 2
		}
		convs = append(convs, cv)
	}
	var cursor int64
	for {
		rows, err := store.Jobs().RowsToEmbed(ctx, cursor, 1000, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) == 0 {
			break
		}
		var vecs [][]float32
		for _, r := range rows {
			vecs = append(vecs, openaifake.Embed(r.Text))
		}
		cursor = rows[len(rows)-1].ID
		if err := store.Index().SaveEmbeddings(ctx, "fake-embed", rows, vecs, memory.LLMCall{}, cursor); err != nil {
			t.Fatal(err)
		}
	}
	search := func(cv conv, text string, emb []float32, limit int) []int64 {
		found, err := store.Index().SearchMessages(ctx, memory.Search{ConversationID: cv.id, Text: text, Limit: limit, Embedding: emb, EmbeddingModel: "fake-embed"})
		if err != nil {
			t.Fatal(err)
		}
		// The hits in their rank, without the rows shown beside them.
		ids := make([]int64, len(found))
		n := 0
		for _, s := range found {
			if s.Hit > 0 && s.Hit <= len(ids) {
				ids[s.Hit-1] = s.MessageID
				n = max(n, s.Hit)
			}
		}
		return ids[:n]
	}
	rank := func(list []int64, id int64) int {
		for i, x := range list {
			if x == id {
				return i + 1
			}
		}
		return 0
	}
	bucket := func(r int) string {
		switch {
		case r == 0:
			return "absent"
		case r <= 10:
			return "1-10"
		default:
			return "11-20"
		}
	}
	var n, em5, em10, ft5, ft10 float64
	kinds := map[string][3]float64{}
	why := map[string]int{}
	for _, cv := range convs {
		for _, q := range cv.c.Questions {
			emb := openaifake.Embed(q.Text)
			fused, ft := search(cv, q.Text, emb, 10), search(cv, q.Text, nil, 20)
			var e5, e10, f5, f10 float64
			for _, e := range q.Evidence {
				id := cv.ids[e]
				r, fr := rank(fused, id), rank(ft, id)
				e5, e10 = e5+b2f(r > 0 && r <= 5), e10+b2f(r > 0)
				f5, f10 = f5+b2f(fr > 0 && fr <= 5), f10+b2f(fr > 0 && fr <= 10)
				if r > 0 {
					continue
				}
				sr := rank(search(cv, "", emb, 20), id)
				why[fmt.Sprintf("%-8s missed: full-text rank %-6s semantic rank %s", q.Kind, bucket(fr), bucket(sr))]++
				for _, g := range fused {
					what := "small talk"
					if i, ok := cv.turn[g]; !ok {
						what = "an assistant row"
					} else if a := cv.c.Turns[i].Attr; a != "" {
						what = "another statement of a fact"
					}
					why[fmt.Sprintf("%-8s missed: in the first ten instead: %s", q.Kind, what)]++
				}
			}
			k := float64(len(q.Evidence))
			n++
			em5, em10, ft5, ft10 = em5+e5/k, em10+e10/k, ft5+f5/k, ft10+f10/k
			kk := kinds[q.Kind]
			kinds[q.Kind] = [3]float64{kk[0] + e10/k, kk[1] + f10/k, kk[2] + 1}
		}
	}
	var ks []string
	for k, v := range kinds {
		ks = append(ks, fmt.Sprintf("%s %.3f / %.3f (%d)", k, v[0]/v[2], v[1]/v[2], int(v[2])))
	}
	sort.Strings(ks)
	var ws []string
	for k, v := range why {
		ws = append(ws, fmt.Sprintf("%5d  %s", v, k))
	}
	sort.Strings(ws)
	t.Logf("%d questions: recall@5 %.3f, recall@10 %.3f with embeddings; %.3f, %.3f full-text alone\n"+
		"recall@10 by kind, with embeddings / full-text alone: %s\nmissed evidence turns (with embeddings):\n%s",
		int(n), em5/n, em10/n, ft5/n, ft10/n, strings.Join(ks, ", "), strings.Join(ws, "\n"))
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
