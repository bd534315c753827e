package recallset_test

// The recall benchmark (BENCHMARKS.md "Recall"), run black-box through the
// real bot against the fakes:
//
//	RECALLBENCH=full go test -run TestRecallBenchmark -v -timeout 60m ./internal/testing/recallset
//
// Without RECALLBENCH=full it runs the small set (CI) and checks the
// targets on it.

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/pgtest"
	"github.com/membot/membot/internal/testing/recallset"
	"github.com/membot/membot/internal/testing/telegramfake"
	"github.com/membot/membot/internal/testing/testkit"
	"github.com/membot/membot/internal/testing/wait"
)

func TestMain(m *testing.M) { os.Exit(openaifake.Main(m)) }

// tally sums what one variant of the bot measured over some questions.
type tally struct {
	questions             float64
	recall5, recall10     float64 // search_history, the question's words
	kwRecall5, kwRecall10 float64 // search_history, key words only
	bm5, bm10             float64 // BM25 over the same rows, the question's words
	bmKw5, bmKw10         float64 // ... key words only
	bmChars, bmKwChars    float64 // BM25 given as many characters as search_history's result
	inContext             float64 // every evidence turn in the first request of the question's turn
	byWindow, byFacts     float64 // ... found there in this part of it
	byRecall, bySummary   float64
	chars, kwChars        []int // the size of search_history's results, characters
}

// score is one variant's tally, in all and per kind of question.
type score struct {
	tally
	byKind      map[string]*tally
	elapsedTurn time.Duration
}

// add counts one question's measurement m into the whole and its kind.
func (s *score) add(kind string, m tally) {
	if s.byKind[kind] == nil {
		s.byKind[kind] = &tally{}
	}
	for _, t := range []*tally{&s.tally, s.byKind[kind]} {
		t.questions++
		t.recall5, t.recall10, t.kwRecall5, t.kwRecall10 = t.recall5+m.recall5, t.recall10+m.recall10, t.kwRecall5+m.kwRecall5, t.kwRecall10+m.kwRecall10
		t.bm5, t.bm10, t.bmKw5, t.bmKw10 = t.bm5+m.bm5, t.bm10+m.bm10, t.bmKw5+m.bmKw5, t.bmKw10+m.bmKw10
		t.bmChars, t.bmKwChars = t.bmChars+m.bmChars, t.bmKwChars+m.bmKwChars
		t.inContext, t.byWindow, t.byFacts = t.inContext+m.inContext, t.byWindow+m.byWindow, t.byFacts+m.byFacts
		t.byRecall, t.bySummary = t.byRecall+m.byRecall, t.bySummary+m.bySummary
		t.chars, t.kwChars = append(t.chars, m.chars...), append(t.kwChars, m.kwChars...)
	}
}

// table is a markdown table of the tallies, a column each.
func table(heads []string, ts []*tally) string {
	var b strings.Builder
	b.WriteString("\n| | " + strings.Join(heads, " | ") + " |\n|---|" + strings.Repeat("---|", len(heads)) + "\n")
	row := func(name string, cell func(t *tally) string) {
		b.WriteString("| " + name + " |")
		for _, t := range ts {
			b.WriteString(" " + cell(t) + " |")
		}
		b.WriteString("\n")
	}
	share := func(f func(t *tally) float64) func(t *tally) string {
		return func(t *tally) string { return fmt.Sprintf("%.3f", f(t)/t.questions) }
	}
	row("questions", func(t *tally) string { return fmt.Sprint(t.questions) })
	row("search_history recall@5, question's words", share(func(t *tally) float64 { return t.recall5 }))
	row("search_history recall@10, question's words", share(func(t *tally) float64 { return t.recall10 }))
	row("search_history recall@5, key words", share(func(t *tally) float64 { return t.kwRecall5 }))
	row("search_history recall@10, key words", share(func(t *tally) float64 { return t.kwRecall10 }))
	row("BM25 recall@5 / @10, question's words", func(t *tally) string {
		return fmt.Sprintf("%.3f / %.3f", t.bm5/t.questions, t.bm10/t.questions)
	})
	row("BM25 recall@5 / @10, key words", func(t *tally) string {
		return fmt.Sprintf("%.3f / %.3f", t.bmKw5/t.questions, t.bmKw10/t.questions)
	})
	row("BM25 recall in search_history's characters, question's / key words", func(t *tally) string {
		return fmt.Sprintf("%.3f / %.3f", t.bmChars/t.questions, t.bmKwChars/t.questions)
	})
	row("search_history's result, characters p50, question's / key words", func(t *tally) string {
		return fmt.Sprintf("%d / %d", recallset.Median(t.chars), recallset.Median(t.kwChars))
	})
	row("evidence in context without a tool call", func(t *tally) string { return fmt.Sprintf("%.1f%%", 100*t.inContext/t.questions) })
	row("… in the window / facts / auto-recall / summary", func(t *tally) string {
		return fmt.Sprintf("%d / %d / %d / %d", int(t.byWindow), int(t.byFacts), int(t.byRecall), int(t.bySummary))
	})
	return b.String()
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
			results[i] = run(t, set, variant{semantic: semantic, autoRecall: "3"})
		})
	}
	wg.Wait()
	ft, em := results[0], results[1]
	if ft == nil || em == nil {
		return
	}
	t.Log(table([]string{"full-text only", "with embeddings"}, []*tally{&ft.tally, &em.tally}))
	for _, v := range []struct {
		name string
		s    *score
	}{{"full-text", ft}, {"embeddings", em}} {
		var kinds []string
		for k, r := range v.s.byKind {
			kinds = append(kinds, fmt.Sprintf("%s %.3f (%d)", k, r.recall10/r.questions, int(r.questions)))
		}
		t.Logf("%s: recall@10 by kind: %s", v.name, strings.Join(kinds, ", "))
	}
	// The targets: full-text recall@10 at least BM25's, with embeddings 1.3
	// times BM25's, and the evidence in context for 70% of the questions.
	if ft.recall10 < ft.bm10 {
		t.Errorf("full-text recall@10 %.3f is below BM25's %.3f", ft.recall10/ft.questions, ft.bm10/ft.questions)
	}
	if em.recall10 < 1.3*em.bm10 {
		t.Errorf("recall@10 with embeddings %.3f is below 1.3 × BM25's %.3f", em.recall10/em.questions, em.bm10/em.questions)
	}
	if share := em.inContext / em.questions; share < 0.7 {
		t.Errorf("evidence in context with embeddings for %.1f%% of questions, below 70%%", 100*share)
	}
}

// TestPublicBenchmark measures the bot as TestRecallBenchmark does, on
// public data (BENCHMARKS.md "Recall", public data: where to get it):
//
//	PUBLICBENCH_DATA=/path/to/REALTALK/data go test -count=1 -run TestPublicBenchmark -v -timeout 60m ./internal/testing/recallset
//
// (without -race: scripts/test.sh's race detector about doubles its 20 minutes),
// full-text only, with auto-recall at its default (3) and off (0);
// PUBLICBENCH_CONVERSATIONS=N keeps the first N conversations. Without
// PUBLICBENCH_DATA it runs testdata/realtalk_sample.json, a file in the
// dataset's format of a few turns, and checks what it must find there.
func TestPublicBenchmark(t *testing.T) {
	path := os.Getenv("PUBLICBENCH_DATA")
	sample := path == ""
	if sample {
		path = "testdata/realtalk_sample.json"
	}
	set, err := recallset.LoadRealTalk(path)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := strconv.Atoi(os.Getenv("PUBLICBENCH_CONVERSATIONS")); err == nil && n > 0 && n < len(set) {
		set = set[:n]
	}
	// The default's auto-recall and none; PUBLICBENCH_AUTO_RECALL=A,B
	// compares two other settings.
	autoRecall := []string{"", "0"}
	if a, b, ok := strings.Cut(os.Getenv("PUBLICBENCH_AUTO_RECALL"), ","); ok {
		autoRecall = []string{a, b}
	}
	var results [2]*score
	var wg sync.WaitGroup
	for i, ar := range autoRecall {
		wg.Add(1)
		t.Run("auto-recall-"+cmp.Or(ar, "default"), func(t *testing.T) {
			defer wg.Done()
			results[i] = run(t, set, variant{autoRecall: ar})
		})
	}
	wg.Wait()
	def, off := results[0], results[1]
	if def == nil || off == nil {
		return
	}
	heads, cols, offCols := []string{"all"}, []*tally{&def.tally}, []*tally{&off.tally}
	for _, k := range []string{recallset.MultiHop, recallset.Temporal, recallset.OpenDomain} {
		if def.byKind[k] != nil && off.byKind[k] != nil {
			heads, cols, offCols = append(heads, k), append(cols, def.byKind[k]), append(offCols, off.byKind[k])
		}
	}
	t.Logf("AUTO_RECALL=%s:%s", cmp.Or(autoRecall[0], "default"), table(heads, cols))
	t.Logf("AUTO_RECALL=%s:%s", autoRecall[1], table(heads, offCols))
	if !sample {
		return
	}
	// The sample: a question of two turns, one of them long (search_history
	// shows it in fragments), and one of one turn; a photo without text, an
	// evidence id naming no turn, and questions with no evidence left are
	// dropped. Every turn is still in the window.
	for _, s := range []*score{def, off} {
		if s.questions != 2 || s.byKind[recallset.MultiHop] == nil || s.byKind[recallset.Temporal] == nil {
			t.Fatalf("measured %v questions of kinds %v, want a multi-hop and a temporal one", s.questions, s.byKind)
		}
		for name, got := range map[string]float64{"recall@10, question's words": s.recall10, "recall@10, key words": s.kwRecall10,
			"BM25 recall@10": s.bm10, "evidence in context": s.inContext, "evidence in the window": s.byWindow} {
			if got != 2 {
				t.Errorf("%s: %v of 2 questions", name, got)
			}
		}
		if s.byRecall != 0 || s.bySummary != 0 || s.byFacts != 0 {
			t.Errorf("evidence found outside the window of a short conversation: %+v", s.tally)
		}
		if c := recallset.Median(s.kwChars); c < 100 || c > 2000 {
			t.Errorf("search_history's result of %d characters for two short questions", c)
		}
		if s.bmKwChars <= 0 || s.bmKwChars > 2 {
			t.Errorf("BM25 in the result's characters: %v of 2", s.bmKwChars)
		}
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

// summaryUserLine is a user's message among the lines the summariser gets:
// "[time] (its origin) user: text".
var summaryUserLine = regexp.MustCompile(`^\[[^\]]*\] (\([^)]*\) )?user: `)

// exchangeUserText is the user's text of the exchange the fact extraction
// gets: the part after the first origin label, up to the answer's label;
// "" when the prompt is not of that shape.
func exchangeUserText(prompt string) string {
	_, rest, ok := strings.Cut(prompt, "each part after its origin:\n[")
	if !ok {
		return ""
	}
	_, rest, ok = strings.Cut(rest, "]\n")
	if !ok {
		return ""
	}
	text, _, _ := strings.Cut(rest, "\n[the assistant's answer")
	return text
}

func (b *bench) respond(req openai.ChatCompletionRequest) openaifake.Reply {
	b.mu.Lock()
	defer b.mu.Unlock()
	system := req.Messages[0].Content
	user := openaifake.LastUserContent(req)
	switch {
	case strings.HasPrefix(system, "You keep the long-term memory"):
		turn, ok := b.facts[exchangeUserText(user)]
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
			if summaryUserLine.MatchString(l) || (l != "" && !strings.HasPrefix(l, "[") && !strings.HasSuffix(l, ":")) {
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

// variant is the settings one run of the bot differs in.
type variant struct {
	semantic   bool   // embeddings on
	autoRecall string // AUTO_RECALL
}

func run(t *testing.T, set []recallset.Conversation, v variant) *score {
	h := testkit.New(t)
	for k, val := range map[string]string{"AUTO_MEMORY": "on", "SUMMARIES": "on", "AUTO_RECALL": v.autoRecall, "STREAMING": "false",
		"MEMORY_CALLS_PER_MINUTE": "100000", "EMBEDDINGS_PER_MINUTE": "100000", "LOG_LEVEL": "warn"} {
		h.Env[k] = val
	}
	if v.autoRecall == "" {
		delete(h.Env, "AUTO_RECALL") // the default
	}
	if v.semantic {
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
	waitMemorized(t, h, v.semantic)
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
		if _, err := h.DB.Exec(ctx, `UPDATE messages m SET created_at = v.at, written_at = v.at FROM unnest($1::bigint[], $2::timestamptz[]) v(id, at)
			WHERE m.id = v.id`, ids, ats); err != nil {
			t.Fatal(err)
		}
	}
	h.DB.Exec(ctx, `UPDATE messages a SET created_at = u.created_at + interval '1 minute' FROM messages u
		WHERE a.role = 'assistant' AND u.id = (SELECT max(id) FROM messages p WHERE p.conversation_id = a.conversation_id AND p.role = 'user' AND p.id < a.id)`)
	perTurn := time.Since(start) / time.Duration(turns)

	s := &score{byKind: map[string]*tally{}, elapsedTurn: perTurn}
	for ci, c := range set {
		// The rows search_history sees, and the same rows as its result
		// shows them: BM25's share of a result of so many characters.
		var docs, lines []string
		for _, turn := range c.Turns {
			docs = append(docs, turn.Text, "Got it.")
			lines = append(lines, "["+turn.At.Format("2006-01-02 15:04")+"] user: "+turn.Text,
				"["+turn.At.Add(time.Minute).Format("2006-01-02 15:04")+"] assistant: Got it.")
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
			s.add(q.Kind, measure(c, q, got, docs, lines))
			// Each question is asked of the conversation as it was: /undo
			// takes it back, so no question finds the ones before it.
			h.Say(users[ci], "/undo")
		}
	}
	t.Logf("%d conversations, %d turns (%.1f ms a turn through the bot), %d questions", len(set), turns, float64(perTurn.Microseconds())/1000, int(s.questions))
	return s
}

// measure is what one question's turn saw, against BM25 over the same
// rows (docs; lines are the rows as a result shows them).
func measure(c recallset.Conversation, q recallset.Question, got *seen, docs, lines []string) tally {
	evidence := make([]recallset.Turn, len(q.Evidence))
	texts := make([]string, len(q.Evidence))
	rows := make([]int, len(q.Evidence)) // the evidence among docs
	for i, e := range q.Evidence {
		evidence[i], texts[i], rows[i] = c.Turns[e], c.Turns[e].Text, 2*e
	}
	m := tally{questions: 1}
	byWords, byKeys := recallset.Entries(got.results[0]), recallset.Entries(got.results[1])
	// @10: the whole result of limit 10, the hits' neighbours included
	// (its characters are bounded, and BM25 is given as many).
	m.recall5, m.recall10 = recallset.Recall(byWords, texts, 5), recallset.Recall(byWords, texts, 0)
	m.kwRecall5, m.kwRecall10 = recallset.Recall(byKeys, texts, 5), recallset.Recall(byKeys, texts, 0)
	m.chars = []int{utf8.RuneCountInString(got.results[0])}
	m.kwChars = []int{utf8.RuneCountInString(got.results[1])}
	ranked, rankedKw := recallset.BM25(docs, q.Text), recallset.BM25(docs, q.Keywords)
	m.bm5, m.bm10 = recallset.RankRecall(ranked, rows, 5), recallset.RankRecall(ranked, rows, 10)
	m.bmKw5, m.bmKw10 = recallset.RankRecall(rankedKw, rows, 5), recallset.RankRecall(rankedKw, rows, 10)
	m.bmChars = recallset.RankRecall(recallset.Fit(lines, ranked, m.chars[0]), rows, 0)
	m.bmKwChars = recallset.RankRecall(recallset.Fit(lines, rankedKw, m.kwChars[0]), rows, 0)
	if len(got.first.Messages) > 0 {
		m.count(got.first, evidence)
	}
	return m
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
	// A whole benchmark's turns, read one exchange at a time: thirty
	// times the patience of one wait (10 minutes at the base).
	deadline := time.Now().Add(30 * wait.Timeout())
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
	t.Fatalf("the background memory work did not catch up in %v", 30*wait.Timeout())
}

// count sets whether, and where, the first request of a question's turn
// held all its evidence.
func (s *tally) count(req openai.ChatCompletionRequest, evidence []recallset.Turn) {
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
	facts, summary := section("Long-term memory"), section("Summary of the earlier part")
	// The recalled messages run to the section after them (one may hold
	// blank lines of its own).
	var recalled []recallset.Entry
	if i := strings.Index(system, "Earlier messages of this conversation"); i >= 0 {
		rest := system[i:]
		if j := strings.Index(rest, "\n\nTool calls of yours waiting"); j >= 0 {
			rest = rest[:j]
		}
		recalled = recallset.Entries(rest)
	}
	var window strings.Builder
	for _, m := range req.Messages[1:] {
		if m.Role != openai.ChatMessageRoleTool { // an earlier question's search results are a tool's
			window.WriteString(m.Content + "\n")
		}
	}
	all, w, f, r, sm := true, true, true, true, true
	for _, e := range evidence {
		inW, inF, inR, inS := strings.Contains(window.String(), e.Text), e.Fact != "" && strings.Contains(facts, e.Fact),
			recallset.Shows(recalled, e.Text, 0), strings.Contains(summary, e.Text)
		all = all && (inW || inF || inR || inS)
		w, f, r, sm = w && inW, f && inF, r && inR, sm && inS
	}
	for _, x := range []struct {
		in  bool
		dst *float64
	}{{all, &s.inContext}, {w, &s.byWindow}, {f, &s.byFacts}, {r, &s.byRecall}, {sm, &s.bySummary}} {
		if x.in {
			*x.dst = 1
		}
	}
}
