package memory_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/membot/membot/internal/testing/pgtest"
	"github.com/membot/membot/internal/testing/seed"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/queue"
)

// planNode is one node of EXPLAIN (FORMAT JSON).
type planNode struct {
	NodeType  string     `json:"Node Type"`
	Relation  string     `json:"Relation Name"`
	Index     string     `json:"Index Name"`
	Direction string     `json:"Scan Direction"`
	Cond      string     `json:"Index Cond"`
	Subplan   string     `json:"Subplan Name"`
	Loops     float64    `json:"Actual Loops"` // with ANALYZE
	Plans     []planNode `json:"Plans"`
}

func (n planNode) String() string {
	s := n.NodeType
	if n.Relation != "" {
		s += " on " + n.Relation
	}
	if n.Index != "" {
		s += " using " + n.Index
	}
	if n.Direction != "" {
		s += " (" + n.Direction + ")"
	}
	return s
}

// has tells whether the plan has a subplan of this name ("CTE rows").
func (n planNode) has(subplan string) bool {
	if n.Subplan == subplan {
		return true
	}
	for _, c := range n.Plans {
		if c.has(subplan) {
			return true
		}
	}
	return false
}

// scansOf lists the nodes of the plan that read table.
func (n planNode) scansOf(table string) []planNode {
	var out []planNode
	if n.Relation == table && strings.HasSuffix(n.NodeType, "Scan") {
		out = append(out, n)
	}
	for _, c := range n.Plans {
		out = append(out, c.scansOf(table)...)
	}
	return out
}

// positional is sql with its @names rewritten to $n the way pgx does,
// and args in their order: what PREPARE and EXECUTE take. Statements with
// positional arguments come back as they are.
func positional(t *testing.T, sql string, args []any) (string, []any) {
	t.Helper()
	if len(args) != 1 {
		return sql, args
	}
	named, ok := args[0].(pgx.NamedArgs)
	if !ok {
		return sql, args
	}
	sql, args, err := pgx.StrictNamedArgs(named).RewriteQuery(context.Background(), nil, sql, nil)
	if err != nil {
		t.Fatal(err)
	}
	return sql, args
}

// literals are args as SQL literals: EXECUTE in EXPLAIN takes no bound
// parameters.
func literals(args []any) string {
	params := make([]string, len(args))
	for i, a := range args {
		params[i] = "'" + strings.ReplaceAll(fmt.Sprint(a), "'", "''") + "'"
	}
	return strings.Join(params, ", ")
}

// explain plans sql as pgx runs it, a prepared statement, with the plan
// PostgreSQL makes for these values (custom) or for any values (generic).
// args are the values of $1, $2, ..., or one pgx.NamedArgs.
func explain(t *testing.T, pool *pgxpool.Pool, mode, sql string, args ...any) planNode {
	t.Helper()
	ctx := context.Background()
	sql, args = positional(t, sql, args)
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	var out string
	// In a transaction: a generic plan is made under the settings the bot
	// makes them with (memory's GenericPlansSQL), a custom one without them.
	settings := memory.GenericPlansSQL
	if mode != "force_generic_plan" {
		settings = "SELECT set_config('plan_cache_mode', '" + mode + "', true)"
	}
	_, err = conn.Exec(ctx, "BEGIN")
	if err == nil {
		_, err = conn.Exec(ctx, settings)
	}
	if err == nil {
		_, err = conn.Exec(ctx, "PREPARE planned AS "+sql)
	}
	if err == nil {
		err = conn.QueryRow(ctx, "EXPLAIN (FORMAT JSON) EXECUTE planned("+literals(args)+")").Scan(&out)
	}
	conn.Exec(ctx, "ROLLBACK")
	conn.Exec(ctx, "DEALLOCATE planned")
	if err != nil {
		t.Fatalf("explain %s: %v", sql, err)
	}
	var plans []struct{ Plan planNode }
	if err := json.Unmarshal([]byte(out), &plans); err != nil || len(plans) != 1 {
		t.Fatalf("explain output %s: %v", out, err)
	}
	return plans[0].Plan
}

// seeded is a database with a realistic spread of conversations, one of
// them long, with fresh statistics.
func seeded(t *testing.T) (*pgxpool.Pool, *seed.Result) {
	t.Helper()
	pool := newPool(t)
	res, err := seed.Fill(context.Background(), pool, seed.Plan{Messages: 40_000, Chats: 200, Giants: 1, GiantSize: 10_000, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	return pool, res
}

// newPool is a pool on a new, migrated database.
func newPool(t *testing.T) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// The statements of a turn, planned over a realistic spread of
// conversations, under the plan for the values at hand and under the
// generic plan a prepared statement may switch to.
func TestTurnPlans(t *testing.T) {
	t.Parallel()
	pool, res := seeded(t)
	t.Run("load last 30 is a backward index scan", func(t *testing.T) { testLoadLast30(t, pool, res) })
	t.Run("the other statements use indexes", func(t *testing.T) { testTurnStatements(t, pool, res) })
	t.Run("a hit's neighbours are short index walks", func(t *testing.T) { testNeighbours(t, pool, res) })
}

// The rows beside search hits are read through the (conversation_id, id)
// index, a few entries each, never by walking the primary key across
// other conversations' rows.
func testNeighbours(t *testing.T, pool *pgxpool.Pool, res *seed.Result) {
	ctx := context.Background()
	var conv, ids string
	if err := pool.QueryRow(ctx, `SELECT c.id::text, ((array_agg(m.id ORDER BY m.id))[1:10])::text FROM conversations c
		JOIN messages m ON m.conversation_id = c.id WHERE c.chat_id = $1 GROUP BY c.id`, res.FirstChatID).Scan(&conv, &ids); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"force_custom_plan", "force_generic_plan"} {
		scans := explain(t, pool, mode, memory.SearchNeighboursSQL, conv, ids, int64(1<<62)).scansOf("messages")
		for _, s := range scans {
			if s.Index != "messages_conversation_id" {
				t.Errorf("%s: a neighbour is read by %v, want the messages_conversation_id index", mode, s)
			}
		}
		checkIndexScansOnly(t, "searchNeighbours, "+mode, scans)
	}
}

// A prepared statement's generic plan is made at its first run on a
// connection and kept: for a new bot, when its tables are all but empty.
// The statements of a turn must find their rows through an index in such
// a plan too (a lookup planned as a scan grows with the table for as long
// as the connection lives).
func TestTurnPlansOnANewDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	store := memory.NewStore(pool)
	if _, err := store.Inbox().SaveAndClaim(ctx, []queue.Update{{UpdateID: 1, ChatID: 7, Payload: []byte(`{"update_id":1}`)}}, 0, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := store.StartTurn(ctx, memory.TurnStart{User: memory.User{TelegramUserID: 7}, Chat: memory.Chat{ID: 7}, UpdateID: 1,
		Content: "hello", HistoryLimit: 30}); err != nil {
		t.Fatal(err)
	}
	res := &seed.Result{FirstChatID: 7, LastChatID: 7}
	t.Run("load last 30 is a backward index scan", func(t *testing.T) { testLoadLast30(t, pool, res) })
	t.Run("the other statements use indexes", func(t *testing.T) { testTurnStatements(t, pool, res) })
}

// Loading the last 30 rows of a conversation must read 30 index entries
// and rows however long the conversation and the table are: an index scan
// of (conversation_id, id), backwards.
func testLoadLast30(t *testing.T, pool *pgxpool.Pool, res *seed.Result) {
	ctx := context.Background()
	var giant string
	var update int64
	if err := pool.QueryRow(ctx, `SELECT c.id::text, max(m.update_id) FROM conversations c JOIN messages m ON m.conversation_id = c.id
		WHERE c.chat_id = $1 GROUP BY c.id`, res.FirstChatID).Scan(&giant, &update); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"force_custom_plan", "force_generic_plan"} {
		for name, q := range map[string]struct {
			sql  string
			args []any
		}{
			"LastMessages":         {memory.LastMessagesSQL, []any{giant, 30}},
			"StartTurn history":    {memory.TurnHistorySQL, []any{turnArgs(res.FirstChatID, update)}},
			"StartTurn, no update": {memory.TurnHistorySQL, []any{turnArgs(res.FirstChatID, 0)}},
		} {
			plan := explain(t, pool, mode, q.sql, q.args...)
			scans := plan.scansOf("messages")
			last := scans[len(scans)-1] // the scan under the LIMIT; before it, finding the turn's row
			if last.NodeType != "Index Scan" || last.Index != "messages_conversation_id" || last.Direction != "Backward" {
				t.Errorf("%s, %s: the last rows are read by %v, want a backward Index Scan using messages_conversation_id", name, mode, last)
			}
			checkIndexScansOnly(t, name+", "+mode, scans)
		}
	}
}

// The other statements of a turn find their rows through an index too.
func testTurnStatements(t *testing.T, pool *pgxpool.Pool, res *seed.Result) {
	ctx := context.Background()
	var update int64
	if err := pool.QueryRow(ctx, `SELECT max(update_id) FROM updates`).Scan(&update); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"force_custom_plan", "force_generic_plan"} {
		for name, q := range map[string]struct {
			sql   string
			table string
			args  []any
		}{
			"turn user row":            {memory.TurnUserRowSQL, "messages", []any{res.FirstChatID, update, 0}},
			"turn user row, no update": {memory.TurnUserRowSQL, "messages", []any{res.FirstChatID, 0, 0}},
			"stored answer":            {memory.TurnAnswerSQL, "messages", []any{update}},
			"claim":                    {inboxSQL(t, "claim"), "updates", []any{res.FirstChatID, 1}},
			"claim if free":            {inboxSQL(t, "claimFree"), "updates", []any{res.FirstChatID, 1}},
			"voice replies":            {memory.VoiceRepliesSQL, "chat_settings", []any{res.FirstChatID}},
			"later in album":           {inboxSQL(t, "laterInAlbum"), "updates", []any{res.FirstChatID, 1, "album"}},
			"save a new update":        {inboxSQL(t, "saveNewUpdate"), "updates", []any{newUpdate(res.FirstChatID, update+1)}},
			"save an update":           {inboxSQL(t, "saveUpdate"), "updates", []any{newUpdate(res.FirstChatID, update+1)}},
		} {
			checkIndexScansOnly(t, name+", "+mode, explain(t, pool, mode, q.sql, q.args...).scansOf(q.table))
		}
		// Auto-recall: whether it has rows to rank, and their ranking.
		for _, chat := range []int64{res.FirstChatID, res.LastChatID} {
			var row int64
			if err := pool.QueryRow(ctx, `SELECT max(m.id) FROM messages m JOIN conversations c ON c.id = m.conversation_id
				WHERE c.chat_id = $1 AND m.role = 'user'`, chat).Scan(&row); err != nil {
				t.Fatal(err)
			}
			rank := pgx.NamedArgs{"turn_id": row, "history_limit": 30, "recall_limit": 3}
			checkRecallPlan(t, chat, mode, explain(t, pool, mode, memory.TurnRankSQL, rank))
			args := turnArgs(chat, update)
			args["recall_limit"] = 3
			found := explain(t, pool, mode, memory.TurnFoundSQL, args)
			checkNoWholeScans(t, fmt.Sprintf("auto-recall found, chat %d, %s", chat, mode), found.scansOf("messages"))
			checkIndexScansOnly(t, fmt.Sprintf("auto-recall's frequent stems, chat %d, %s", chat, mode),
				found.scansOf("conversation_frequent_stems"))
		}
	}
}

// turnArgs are the arguments of a turn's statements for its update in
// chat (0: the chat's newest user row), a window of 30 rows, no topic.
func turnArgs(chat, update int64) pgx.NamedArgs {
	return pgx.NamedArgs{"chat_id": chat, "update_id": update, "history_limit": 30, "message_thread_id": 0}
}

// newUpdate are the arguments of the inbox's statements that save an
// update of bot 1.
func newUpdate(chat, update int64) pgx.NamedArgs {
	return pgx.NamedArgs{"bot_id": 1, "update_id": update, "chat_id": chat, "payload": `{}`}
}

// inboxSQL is the text of the inbox's statement called name.
func inboxSQL(t *testing.T, name string) string {
	t.Helper()
	text, ok := queue.Statements.Lookup(name)
	if !ok {
		t.Fatalf("memory/queue has no statement %s", name)
	}
	return text
}

// checkRecallPlan: auto-recall searches the full-text index: bitmap scans
// of it and of the conversation's rows, never the whole table (nor the
// whole of an index, as a walk down the primary key would).
func checkRecallPlan(t *testing.T, chat int64, mode string, plan planNode) {
	t.Helper()
	// The conversation's size is computed once: inlined, its scans ran
	// again for every candidate row.
	if !plan.has("CTE rows") || !plan.has("CTE ends") {
		t.Errorf("auto-recall, chat %d, %s: the size CTEs are not computed once", chat, mode)
	}
	checkNoWholeScans(t, fmt.Sprintf("auto-recall, chat %d, %s", chat, mode), plan.scansOf("messages"))
}

// checkNoWholeScans: none of scans reads a whole table or index.
func checkNoWholeScans(t *testing.T, name string, scans []planNode) {
	t.Helper()
	if len(scans) == 0 {
		t.Errorf("%s: no scan in the plan", name)
	}
	for _, s := range scans {
		if s.NodeType == "Seq Scan" || strings.HasPrefix(s.NodeType, "Index") && s.Cond == "" {
			t.Errorf("%s: %v", name, s)
		}
	}
}

func checkIndexScansOnly(t *testing.T, name string, scans []planNode) {
	t.Helper()
	if len(scans) == 0 {
		t.Errorf("%s: no scan in the plan", name)
	}
	for _, s := range scans {
		if s.NodeType != "Index Scan" && s.NodeType != "Index Only Scan" {
			t.Errorf("%s: %v, want index scans only", name, s)
		} else if s.Cond == "" {
			t.Errorf("%s: %v reads the whole index", name, s)
		}
	}
}

// A turn's auto-recall with vectors keeps the plan PostgreSQL made for it
// on a new bot's empty tables until autovacuum's statistics replace it.
// That plan, run on a grown conversation, looks each thing up once: it
// once ran the semantic side's lower bound again for every embedding it
// compared (17 ms a turn in the recall set, growing as the square of the
// conversation).
func TestRecallPlanMadeOnANewDatabaseLooksUpOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := withVectors(t)
	start := func(update int64) {
		if _, err := store.StartTurn(ctx, memory.TurnStart{User: memory.User{TelegramUserID: 1}, Chat: memory.Chat{ID: 1}, UpdateID: update,
			Content: "hello there", HistoryLimit: 30}); err != nil {
			t.Fatal(err)
		}
	}
	start(1)
	conn, err := store.Pool().Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	recallSQL, recallArgs := positional(t, memory.TurnRecallVectorsSQL, []any{pgx.NamedArgs{
		"chat_id": 1, "update_id": 0, "history_limit": 30, "recall_limit": 3, "embedding": "[1,0,0]",
		"embedding_model": "m", "message_thread_id": 0,
	}})
	run := func(explain bool) string {
		t.Helper()
		sql := "EXECUTE recall(" + literals(recallArgs) + ")"
		if explain {
			sql = "EXPLAIN (ANALYZE, FORMAT JSON) " + sql
		}
		var out string
		_, err := conn.Exec(ctx, "BEGIN")
		if err == nil {
			_, err = conn.Exec(ctx, memory.GenericPlansSQL)
		}
		if err == nil {
			var rows pgx.Rows
			if rows, err = conn.Query(ctx, sql); err == nil {
				for rows.Next() && err == nil {
					if explain {
						err = rows.Scan(&out)
					}
				}
				rows.Close()
				if err == nil {
					err = rows.Err()
				}
			}
		}
		conn.Exec(ctx, "ROLLBACK")
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return out
	}
	if _, err := conn.Exec(ctx, "PREPARE recall AS "+recallSQL); err != nil {
		t.Fatal(err)
	}
	defer conn.Exec(ctx, "DEALLOCATE recall")
	run(false) // the plan is made now, on all but empty tables
	if _, err := store.Pool().Exec(ctx, `INSERT INTO messages (conversation_id, role, content)
		SELECT (SELECT conversation_id FROM messages LIMIT 1), CASE WHEN g % 2 = 0 THEN 'user' ELSE 'assistant' END,
			'note ' || g || ' about the weather' FROM generate_series(1, 300) g;
		INSERT INTO message_embeddings (message_id, conversation_id, model, embedding)
		SELECT id, conversation_id, 'm', '[0,1,0]' FROM messages`); err != nil {
		t.Fatal(err)
	}
	var plans []struct{ Plan planNode }
	if err := json.Unmarshal([]byte(run(true)), &plans); err != nil || len(plans) != 1 {
		t.Fatalf("explain: %v", err)
	}
	for _, n := range plans[0].Plan.scansOf("message_embeddings") {
		if n.Loops > 1 {
			t.Errorf("auto-recall's plan made on a new database reads message_embeddings %v times: %v", n.Loops, n)
		}
	}
}
