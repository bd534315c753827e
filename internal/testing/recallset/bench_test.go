package recallset_test

// The recall benchmark (BENCHMARKS.md "Recall"), run black-box through the
// real bot against the fakes:
//
//	RECALLBENCH=full go test -run TestRecallBenchmark -v -timeout 60m ./internal/recallset
//
// Without RECALLBENCH=full it runs the small set (CI) and checks the
// targets on it.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/pgtest"
	"github.com/membot/membot/internal/testing/recallset"
	"github.com/membot/membot/internal/testing/telegramfake"
	"github.com/membot/membot/internal/testing/testkit"
)

func TestMain(m *testing.M) { os.Exit(openaifake.Main(m)) }

// score is what one variant of the bot measured.
type score struct {
	questions             int
	recall5, recall10     float64 // search_history, the question's words
	kwRecall5, kwRecall10 float64 // search_history, key words only
	bm5, bm10             float64 // BM25 over the same rows, the question's words
	inContext             int     // every evidence turn in the first request of the question's turn
	byWindow, byFacts     int     // ... found there in this part of it
	byRecall, bySummary   int
	byKind                map[string][2]float64 // recall@10 and count, per kind
	elapsedTurn           time.Duration
}

func TestRecallBenchmark(t *testing.T) {
	sz := recallset.Small
	if os.Getenv("RECALLBENCH") == "full" {
		sz = recallset.Full
	}
	set := recallset.Generate(15, sz)
	var results [2]*score
	var wg sync.WaitGroup
	for i, semantic := range []bool{false, true} {
		wg.Add(1)
		t.Run(map[bool]string{false: "fulltext", true: "embeddings"}[semantic], func(t *testing.T) {
			defer wg.Done()
			results[i] = run(t, set, semantic)
		})
	}
	wg.Wait()
	ft, em := results[0], results[1]
	if ft == nil || em == nil {
		return
	}
	t.Logf("\n| recall | full-text only | with embeddings |\n|---|---|---|\n"+
		"| questions | %d | %d |\n"+
		"| search_history recall@5, question's words | %.3f | %.3f |\n"+
		"| search_history recall@10, question's words | %.3f | %.3f |\n"+
		"| search_history recall@5, key words | %.3f | %.3f |\n"+
		"| search_history recall@10, key words | %.3f | %.3f |\n"+
		"| BM25 recall@5 / @10, question's words | %.3f / %.3f | %.3f / %.3f |\n"+
		"| evidence in context without a tool call | %.1f%% | %.1f%% |\n"+
		"| … in the window / facts / auto-recall / summary | %d / %d / %d / %d | %d / %d / %d / %d |\n",
		ft.questions, em.questions, ft.recall5, em.recall5, ft.recall10, em.recall10, ft.kwRecall5, em.kwRecall5,
		ft.kwRecall10, em.kwRecall10, ft.bm5, ft.bm10, em.bm5, em.bm10,
		100*float64(ft.inContext)/float64(ft.questions), 100*float64(em.inContext)/float64(em.questions),
		ft.byWindow, ft.byFacts, ft.byRecall, ft.bySummary, em.byWindow, em.byFacts, em.byRecall, em.bySummary)
	for _, v := range []struct {
		name string
		s    *score
	}{{"full-text", ft}, {"embeddings", em}} {
		var kinds []string
		for k, r := range v.s.byKind {
			kinds = append(kinds, fmt.Sprintf("%s %.3f (%d)", k, r[0]/r[1], int(r[1])))
		}
		t.Logf("%s: recall@10 by kind: %s", v.name, strings.Join(kinds, ", "))
	}
	// The targets: full-text recall@10 at least BM25's, with embeddings 1.3
	// times BM25's, and the evidence in context for 70% of the questions.
	if ft.recall10 < ft.bm10 {
		t.Errorf("full-text recall@10 %.3f is below BM25's %.3f", ft.recall10, ft.bm10)
	}
	if em.recall10 < 1.3*em.bm10 {
		t.Errorf("recall@10 with embeddings %.3f is below 1.3 × BM25's %.3f", em.recall10, em.bm10)
	}
	if share := float64(em.inContext) / float64(em.questions); share < 0.7 {
		t.Errorf("evidence in context with embeddings for %.1f%% of questions, below 70%%", 100*share)
	}
}

var stampRE = regexp.MustCompile(`^\[[^\]]*\] `)

// bench is the fake model's side of one run: it extracts the planted
// facts as a perfect model would, summarises by keeping the newest lines,
// and on a question calls search_history twice, recording what it saw.
type bench struct {
	mu        sync.Mutex
	facts     map[string]recallset.Turn // statement text -> its turn
	questions map[string]bool
	seen      map[string]*seen // question -> what its turn saw
}

type seen struct {
	first   openai.ChatCompletionRequest
	results [2]string
}

var knownFact = regexp.MustCompile(`(?m)^#(\d+) (\w+): `)

func (b *bench) respond(req openai.ChatCompletionRequest) openaifake.Reply {
	b.mu.Lock()
	defer b.mu.Unlock()
	system := req.Messages[0].Content
	user := openaifake.LastUserContent(req)
	switch {
	case strings.HasPrefix(system, "You keep the long-term memory"):
		ex := user[strings.Index(user, "\nUser: ")+7:]
		ex = ex[:strings.Index(ex, "\nAssistant: ")]
		turn, ok := b.facts[ex]
		if !ok {
			return openaifake.Reply{Content: `{"facts": []}`}
		}
		fact := map[string]any{"text": turn.Fact}
		for _, m := range knownFact.FindAllStringSubmatch(user, -1) {
			if m[2] == turn.Attr {
				fact["id"] = json.Number(m[1])
			}
		}
		out, _ := json.Marshal(map[string]any{"facts": []any{fact}})
		return openaifake.Reply{Content: string(out)}
	case strings.HasPrefix(system, "You write the running summary"):
		// Keep the previous summary and the user's lines, the newest 1,500 bytes.
		var lines []string
		for _, l := range strings.Split(user, "\n") {
			if strings.Contains(l, "] user: ") || (l != "" && !strings.HasPrefix(l, "[") && !strings.HasSuffix(l, ":")) {
				lines = append(lines, l)
			}
		}
		s := strings.Join(lines, "\n")
		if len(s) > 1500 {
			s = s[len(s)-1500:]
		}
		return openaifake.Reply{Content: s}
	}
	q := stampRE.ReplaceAllString(user, "")
	if !b.questions[q] {
		return openaifake.Reply{Content: "Got it."}
	}
	last := req.Messages[len(req.Messages)-1]
	if last.Role == openai.ChatMessageRoleTool {
		n := len(req.Messages)
		b.seen[q].results = [2]string{req.Messages[n-2].Content, req.Messages[n-1].Content}
		return openaifake.Reply{Content: "ok"}
	}
	b.seen[q] = &seen{first: req}
	return openaifake.Reply{} // replaced by the caller with the two searches
}

func run(t *testing.T, set []recallset.Conversation, semantic bool) *score {
	h := testkit.New(t)
	for k, v := range map[string]string{"AUTO_MEMORY": "on", "SUMMARIES": "on", "AUTO_RECALL": "3", "STREAMING": "false",
		"MEMORY_CALLS_PER_MINUTE": "100000", "EMBEDDINGS_PER_MINUTE": "100000", "LOG_LEVEL": "warn"} {
		h.Env[k] = v
	}
	if semantic {
		pgtest.RequireVectors(t)
		h.Env["EMBEDDINGS_MODEL"] = "fake-embed"
	}
	b := &bench{facts: map[string]recallset.Turn{}, questions: map[string]bool{}, seen: map[string]*seen{}}
	h.LLM.DiscardRequests()
	h.LLM.RespondWith(func(req openai.ChatCompletionRequest) openaifake.Reply {
		r := b.respond(req)
		if r.Content == "" && r.ToolCalls == nil {
			q := stampRE.ReplaceAllString(openaifake.LastUserContent(req), "")
			query, _ := json.Marshal(map[string]any{"query": q, "limit": 10})
			kw, _ := json.Marshal(map[string]any{"query": keywordsOf(set, q), "limit": 10})
			r.ToolCalls = []openai.ToolCall{openaifake.ToolCall("s1", "search_history", string(query)), openaifake.ToolCall("s2", "search_history", string(kw))}
		}
		return r
	})
	h.Start()
	ctx := context.Background()
	users := make([]telegramfake.User, len(set))
	start := time.Now()
	turns := 0
	for ci, c := range set {
		users[ci] = telegramfake.User{ID: int64(7000 + ci), FirstName: "Bench", LanguageCode: "en"}
		for _, turn := range c.Turns {
			if turn.Fact != "" {
				b.mu.Lock()
				b.facts[turn.Text] = turn
				b.mu.Unlock()
			}
			h.Say(users[ci], turn.Text)
			turns++
		}
	}
	// The background work catches up, then the turns get their simulated dates.
	waitMemorized(t, h, semantic)
	for ci, c := range set {
		var ids []int64
		rows, _ := h.DB.Query(ctx, `SELECT m.id FROM messages m JOIN conversations c ON c.id = m.conversation_id
			WHERE c.chat_id = $1 AND m.role = 'user' ORDER BY m.id`, users[ci].ID)
		for rows.Next() {
			var id int64
			rows.Scan(&id)
			ids = append(ids, id)
		}
		var ats []time.Time
		for _, turn := range c.Turns {
			ats = append(ats, turn.At)
		}
		if _, err := h.DB.Exec(ctx, `UPDATE messages m SET created_at = v.at FROM unnest($1::bigint[], $2::timestamptz[]) v(id, at)
			WHERE m.id = v.id`, ids, ats); err != nil {
			t.Fatal(err)
		}
	}
	h.DB.Exec(ctx, `UPDATE messages a SET created_at = u.created_at + interval '1 minute' FROM messages u
		WHERE a.role = 'assistant' AND u.id = (SELECT max(id) FROM messages p WHERE p.conversation_id = a.conversation_id AND p.role = 'user' AND p.id < a.id)`)
	perTurn := time.Since(start) / time.Duration(turns)

	s := &score{byKind: map[string][2]float64{}, elapsedTurn: perTurn}
	for ci, c := range set {
		var docs []string // the rows search_history sees
		for _, turn := range c.Turns {
			docs = append(docs, turn.Text, "Got it.")
		}
		for _, q := range c.Questions {
			b.mu.Lock()
			b.questions[q.Text] = true
			b.mu.Unlock()
			h.Say(users[ci], q.Text)
			b.mu.Lock()
			got := b.seen[q.Text]
			delete(b.seen, q.Text)
			b.mu.Unlock()
			if got == nil {
				t.Fatalf("the question %q reached no model call", q.Text)
			}
			evidence := make([]recallset.Turn, len(q.Evidence))
			for i, e := range q.Evidence {
				evidence[i] = c.Turns[e]
			}
			r5, r10 := recallAt(got.results[0], evidence)
			k5, k10 := recallAt(got.results[1], evidence)
			var ranked []string
			for _, i := range recallset.BM25(docs, q.Text) {
				ranked = append(ranked, docs[i])
			}
			b5, b10 := recallAt(strings.Join(append([]string{"header"}, ranked...), "\n"), evidence)
			s.questions++
			s.recall5, s.recall10, s.kwRecall5, s.kwRecall10, s.bm5, s.bm10 = s.recall5+r5, s.recall10+r10, s.kwRecall5+k5, s.kwRecall10+k10, s.bm5+b5, s.bm10+b10
			k := s.byKind[q.Kind]
			s.byKind[q.Kind] = [2]float64{k[0] + r10, k[1] + 1}
			s.count(got.first, evidence)
			// Each question is asked of the conversation as it was: /undo
			// takes it back, so no question finds the ones before it.
			h.Say(users[ci], "/undo")
		}
	}
	n := float64(s.questions)
	s.recall5, s.recall10, s.kwRecall5, s.kwRecall10, s.bm5, s.bm10 = s.recall5/n, s.recall10/n, s.kwRecall5/n, s.kwRecall10/n, s.bm5/n, s.bm10/n
	t.Logf("%d conversations, %d turns (%.1f ms a turn through the bot), %d questions", len(set), turns, float64(perTurn.Microseconds())/1000, s.questions)
	return s
}

func keywordsOf(set []recallset.Conversation, q string) string {
	for _, c := range set {
		for _, x := range c.Questions {
			if x.Text == q {
				return x.Keywords
			}
		}
	}
	return q
}

// waitMemorized waits until the after-turn job (and the embeddings job)
// has read every message.
func waitMemorized(t *testing.T, h *testkit.Harness, semantic bool) {
	deadline := time.Now().Add(10 * time.Minute)
	for time.Now().Before(deadline) {
		done := h.Count(`SELECT count(*) FROM memory_jobs WHERE job = 'after_turn' AND last_message_id >= (SELECT max(id) FROM messages WHERE role = 'assistant')`) == 1
		if semantic {
			done = done && h.Count(`SELECT count(*) FROM memory_jobs WHERE job = 'embeddings' AND last_message_id >= (SELECT max(id) FROM messages WHERE role IN ('user', 'assistant'))`) == 1
		}
		if done {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("the background memory work did not catch up in 10 minutes")
}

// recallAt is the share of the evidence turns among the first 5 and 10
// lines of a search's result (its first line is a header).
func recallAt(result string, evidence []recallset.Turn) (float64, float64) {
	lines := strings.Split(strings.NewReplacer("«", "", "»", "").Replace(result), "\n")
	var at5, at10 float64
	for _, e := range evidence {
		for i, l := range lines {
			if i > 0 && i <= 10 && strings.HasSuffix(l, e.Text) {
				at10++
				if i <= 5 {
					at5++
				}
				break
			}
		}
	}
	return at5 / float64(len(evidence)), at10 / float64(len(evidence))
}

// count adds whether, and where, the first request of a question's turn
// held all its evidence.
func (s *score) count(req openai.ChatCompletionRequest, evidence []recallset.Turn) {
	system := req.Messages[0].Content
	section := func(title string) string {
		i := strings.Index(system, title)
		if i < 0 {
			return ""
		}
		rest := system[i:]
		if j := strings.Index(rest[len(title):], "\n\n"); j >= 0 {
			rest = rest[:len(title)+j]
		}
		return strings.NewReplacer("«", "", "»", "").Replace(rest)
	}
	facts, summary, recalled := section("Long-term memory"), section("Summary of the earlier part"), section("Earlier messages of this conversation")
	var window strings.Builder
	for _, m := range req.Messages[1:] {
		if m.Role != openai.ChatMessageRoleTool { // an earlier question's search results are a tool's
			window.WriteString(m.Content + "\n")
		}
	}
	all, w, f, r, sm := true, true, true, true, true
	for _, e := range evidence {
		inW, inF, inR, inS := strings.Contains(window.String(), e.Text), e.Fact != "" && strings.Contains(facts, e.Fact),
			strings.Contains(recalled, e.Text), strings.Contains(summary, e.Text)
		all = all && (inW || inF || inR || inS)
		w, f, r, sm = w && inW, f && inF, r && inR, sm && inS
	}
	if all {
		s.inContext++
	}
	for _, x := range []struct {
		in  bool
		dst *int
	}{{w, &s.byWindow}, {f, &s.byFacts}, {r, &s.byRecall}, {sm, &s.bySummary}} {
		if x.in {
			*x.dst++
		}
	}
}
