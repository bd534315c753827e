package recallset_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/agent/tools"
	"github.com/membot/membot/internal/stamp"
	"github.com/membot/membot/internal/testing/pgtest"
	"github.com/membot/membot/internal/testing/recallset"
	"github.com/membot/membot/memory"
)

// TestPublicSearchOnly is the search_history half of TestPublicBenchmark
// in a minute, for work on the ranking:
//
//	PUBLICBENCH=search PUBLICBENCH_DATA=/path/to/REALTALK/data go test -count=1 -run TestPublicSearchOnly -v ./internal/testing/recallset
//
// Each conversation's rows are stored directly as the bot stores them (a
// user turn stamped at its date, answered "Got it." a minute later), and
// each question's key words are searched through the search_history tool
// itself, limit 10, as TestPublicBenchmark's second search does. It logs
// the result's recall and size against BM25 given as many characters.
func TestPublicSearchOnly(t *testing.T) {
	path := os.Getenv("PUBLICBENCH_DATA")
	if os.Getenv("PUBLICBENCH") != "search" || path == "" {
		t.Skip("PUBLICBENCH=search with PUBLICBENCH_DATA runs it")
	}
	set, err := recallset.LoadRealTalk(path)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := strconv.Atoi(os.Getenv("PUBLICBENCH_CONVERSATIONS")); err == nil && n > 0 && n < len(set) {
		set = set[:n]
	}
	ctx := context.Background()
	url := pgtest.New(t)
	store, err := memory.Open(ctx, url, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	db, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var tool agent.Tool
	for _, x := range tools.Builtin(tools.Env{History: store.Index(), Location: time.UTC}) {
		if x.Name == "search_history" {
			tool = x
		}
	}
	s := &score{byKind: map[string]*tally{}}
	reach := map[string]*[3]float64{} // by kind: questions, reach by words, reach by words or beside
	for ci, c := range set {
		id, err := store.CurrentConversation(ctx, memory.Chat{ID: int64(7000 + ci)}, int64(7000+ci))
		if err != nil {
			t.Fatal(err)
		}
		var msgs []memory.Message
		var docs, lines []string
		for _, turn := range c.Turns {
			msgs = append(msgs, memory.Message{Role: memory.RoleUser, Content: stamp.Add(turn.At, time.UTC, turn.Text)},
				memory.Message{Role: memory.RoleAssistant, Content: "Got it."})
			docs = append(docs, turn.Text, "Got it.")
			lines = append(lines, "["+turn.At.Format("2006-01-02 15:04")+"] user: "+turn.Text,
				"["+turn.At.Add(time.Minute).Format("2006-01-02 15:04")+"] assistant: Got it.")
		}
		ids, err := store.AppendMessages(ctx, id, msgs...)
		if err != nil {
			t.Fatal(err)
		}
		var ats []time.Time
		for _, turn := range c.Turns {
			ats = append(ats, turn.At, turn.At.Add(time.Minute))
		}
		if _, err := db.Exec(ctx, `UPDATE messages m SET created_at = v.at, written_at = v.at FROM unnest($1::bigint[], $2::timestamptz[]) v(id, at)
			WHERE m.id = v.id`, ids, ats); err != nil {
			t.Fatal(err)
		}
		rare := rareStems(t, db, id, len(c.Turns))
		info := &agent.TurnInfo{ConversationID: id}
		for _, q := range c.Questions {
			for _, kind := range []string{"all", q.Kind} {
				if reach[kind] == nil {
					reach[kind] = &[3]float64{}
				}
				r := reach[kind]
				words, beside := reachable(t, db, ids, rare, q)
				r[0], r[1], r[2] = r[0]+1, r[1]+words, r[2]+beside
			}
			search := func(text string) string {
				raw, _ := json.Marshal(map[string]any{"query": text, "limit": 10})
				out, err := tool.Run(ctx, info, raw)
				if err != nil {
					t.Fatal(err)
				}
				return out
			}
			m := measure(c, q, &seen{results: [2]string{search(q.Text), search(q.Keywords)}}, docs, lines)
			s.add(q.Kind, m)
		}
	}
	heads, cols := []string{"all"}, []*tally{&s.tally}
	for _, k := range []string{recallset.MultiHop, recallset.Temporal, recallset.OpenDomain} {
		if s.byKind[k] != nil {
			heads, cols = append(heads, k), append(cols, s.byKind[k])
		}
	}
	t.Logf("search_history alone:%s", table(heads, cols))
	line := "evidence turns holding a key word that at most 1 in 10 turns hold (what a ranking by words can reach) / … or next to such a turn:"
	for _, k := range heads {
		if r := reach[k]; r != nil {
			line += fmt.Sprintf(" %s %.3f / %.3f;", k, r[1]/r[0], r[2]/r[0])
		}
	}
	t.Log(line)
}

// rareStems are the stems of the conversation's turns (its user rows)
// that at most one turn in 10 holds.
func rareStems(t *testing.T, db *pgxpool.Pool, conversation string, turns int) map[string]bool {
	t.Helper()
	rows, err := db.Query(context.Background(), `SELECT l FROM messages m, unnest(tsvector_to_array(m.search_vector)) l
		WHERE m.conversation_id = $1 AND m.role = 'user' GROUP BY l HAVING count(*) * 10 <= $2`, conversation, turns)
	if err != nil {
		t.Fatal(err)
	}
	stems, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	rare := map[string]bool{}
	for _, l := range stems {
		rare[l] = true
	}
	return rare
}

// reachable is the share of q's evidence turns whose rows (ids: user and
// assistant rows, two a turn) hold one of the key words' stems that are
// rare, and the share that do or are next to a turn that does.
func reachable(t *testing.T, db *pgxpool.Pool, ids []int64, rare map[string]bool, q recallset.Question) (float64, float64) {
	t.Helper()
	var byRow []bool // for each turn: its row holds a rare key word
	rows, err := db.Query(context.Background(), `SELECT m.search_vector @@ coalesce(array_to_string(ARRAY(SELECT quote_literal(l)
			FROM unnest(tsvector_to_array(to_tsvector(membot_ts_config($2), $2))) l WHERE l = ANY($3)), ' | ')::tsquery, ''::tsquery)
		FROM unnest($1::bigint[]) WITH ORDINALITY r(id, n) JOIN messages m ON m.id = r.id WHERE r.n % 2 = 1 ORDER BY r.n`,
		ids, q.Keywords, mapKeys(rare))
	if err != nil {
		t.Fatal(err)
	}
	if byRow, err = pgx.CollectRows(rows, pgx.RowTo[bool]); err != nil {
		t.Fatal(err)
	}
	words, beside := 0, 0
	for _, e := range q.Evidence {
		switch {
		case byRow[e]:
			words++
			beside++
		case e > 0 && byRow[e-1] || e+1 < len(byRow) && byRow[e+1]:
			beside++
		}
	}
	return float64(words) / float64(len(q.Evidence)), float64(beside) / float64(len(q.Evidence))
}

func mapKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
