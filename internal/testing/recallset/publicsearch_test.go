package recallset_test

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"testing"
	"time"

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
	for _, x := range tools.Builtin(tools.Env{Store: store, Location: time.UTC}) {
		if x.Name == "search_history" {
			tool = x
		}
	}
	s := &score{byKind: map[string]*tally{}}
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
		info := &agent.TurnInfo{ConversationID: id}
		for _, q := range c.Questions {
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
}
