package memory_test

import (
	"github.com/membot/membot/internal/testing/wait"
	"github.com/membot/membot/memory/jobs"

	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/membot/membot/internal/testing/pgtest"
	"github.com/membot/membot/internal/testing/tcpproxy"
	"github.com/membot/membot/memory"
)

// Recall, facts that change, summaries, the background cursors.

func say(t *testing.T, store *memory.Store, conv string, texts ...string) []int64 {
	t.Helper()
	var msgs []memory.Message
	for i, text := range texts {
		role := memory.RoleUser
		if i%2 == 1 {
			role = memory.RoleAssistant
		}
		msgs = append(msgs, memory.Message{Role: role, Content: text})
	}
	ids, err := store.AppendMessages(context.Background(), conv, msgs...)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func found(t *testing.T, store *memory.Store, q memory.Search) []int64 {
	t.Helper()
	if q.Limit == 0 {
		q.Limit = 5
	}
	snippets, err := store.Index().SearchMessages(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return snippetIDs(hits(snippets))
}

// hits are the rows a search found, best first, without the rows shown
// beside them.
func hits(snippets []memory.Snippet) []memory.Snippet {
	var out []memory.Snippet
	for _, s := range snippets {
		if s.Hit > 0 {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b memory.Snippet) int { return a.Hit - b.Hit })
	return out
}

func snippetIDs(snippets []memory.Snippet) []int64 {
	var ids []int64
	for _, s := range snippets {
		ids = append(ids, s.MessageID)
	}
	return ids
}

// fill adds n rows to conversation conv, user and assistant in turn; row g
// (1 to n) says the SQL expression content of g. It returns a function
// giving the id of row g.
func fill(t *testing.T, store *memory.Store, conv string, n int, content string) func(g int64) int64 {
	t.Helper()
	var first int64
	err := store.Pool().QueryRow(context.Background(), `WITH added AS (INSERT INTO messages (conversation_id, role, content)
		SELECT $1, CASE WHEN g % 2 = 1 THEN 'user' ELSE 'assistant' END, `+content+`
		FROM generate_series(1, $2::int) g RETURNING id) SELECT min(id) FROM added`, conv, n).Scan(&first)
	if err != nil {
		t.Fatal(err)
	}
	return func(g int64) int64 { return first + g - 1 }
}

func TestSearchStemsEachMessageInItsLanguageAndSkipsStopWords(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	conv, _ := store.CurrentConversation(ctx, memory.Chat{ID: 1}, 1)
	ids := say(t, store, conv,
		"[Текущее время: 2026-01-05 10:00] My cat sleeps on the sofa",
		"What a lovely cat!",
		"[Текущее время: 2026-01-06 10:00] Летом была поездка в Казань",
		"Отличная поездка!",
		"[Текущее время: 2026-01-07 10:00] The weather is what it is",
		"And so it goes")
	if got := found(t, store, memory.Search{ConversationID: conv, Text: "cats"}); len(got) != 2 || got[0] != ids[0] && got[0] != ids[1] {
		t.Fatalf("cats found %v; want the two rows about the cat", got)
	}
	if got := found(t, store, memory.Search{ConversationID: conv, Text: "поездки в Казани"}); len(got) != 2 || got[0] != ids[2] {
		t.Fatalf("поездки в Казани found %v; want the trip, the row with both words first", got)
	}
	// Stop words match nothing, in either language.
	for _, q := range []string{"what is the", "и в на"} {
		if got := found(t, store, memory.Search{ConversationID: conv, Text: q}); len(got) != 0 {
			t.Errorf("%q found %v", q, got)
		}
	}
}

// withVectors is a store whose searches may use message_embeddings.
func withVectors(t *testing.T) *memory.Store {
	t.Helper()
	pgtest.RequireVectors(t)
	store := open(t)
	ok, err := store.Index().EnableVectors(context.Background())
	if err != nil || !ok {
		t.Fatalf("pgvector in the test database: %v, %v (scripts/test.sh installs it)", ok, err)
	}
	return store
}

func TestSearchFusesFullTextAndEmbeddings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := withVectors(t)
	conv, _ := store.CurrentConversation(ctx, memory.Chat{ID: 1}, 1)
	ids := say(t, store, conv, "Я ездил в Казань в мае", "Как прошло?", "Погода в Казани была хорошая", "Отлично")
	rows, err := store.Jobs().RowsToEmbed(ctx, 0, 10, 0)
	if err != nil || len(rows) != 4 {
		t.Fatalf("rows to embed = %v, %v", rows, err)
	}
	// Hand-made vectors: the trip row is close to the query's meaning.
	vecs := [][]float32{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0, 1, 1}}
	if err := store.Index().SaveEmbeddings(ctx, "m", rows, vecs, memory.LLMCall{Model: "m", Purpose: memory.PurposeEmbeddings}, rows[3].ID); err != nil {
		t.Fatal(err)
	}
	// "поездка" shares no stem with "ездил": full-text alone finds nothing.
	if got := found(t, store, memory.Search{ConversationID: conv, Text: "поездка"}); len(got) != 0 {
		t.Fatalf("full-text alone found %v", got)
	}
	q := memory.Search{ConversationID: conv, Text: "поездка", Embedding: []float32{0.9, 0.1, 0}, EmbeddingModel: "m", Limit: 1}
	if got := found(t, store, q); len(got) != 1 || got[0] != ids[0] {
		t.Fatalf("semantic search found %v; want %d", got, ids[0])
	}
	// A row both rankings put high wins the fusion: "Казань" matches rows
	// 0 and 2 by words, and the vector is nearest row 2.
	q = memory.Search{ConversationID: conv, Text: "Казань", Embedding: []float32{0, 0.1, 1}, EmbeddingModel: "m", Limit: 2}
	if got := found(t, store, q); len(got) != 2 || got[0] != ids[2] || got[1] != ids[0] {
		t.Fatalf("fused search found %v; want %d then %d", got, ids[2], ids[0])
	}
	// Another model's vectors are not compared.
	q.EmbeddingModel = "other"
	if got := found(t, store, q); len(got) != 2 {
		t.Fatalf("search with another model found %v", got)
	}
	// Deleting messages deletes their embeddings.
	if _, err := store.Pool().Exec(ctx, `DELETE FROM messages WHERE id = $1`, ids[0]); err != nil {
		t.Fatal(err)
	}
	var n int
	store.Pool().QueryRow(ctx, `SELECT count(*) FROM message_embeddings`).Scan(&n)
	if n != 3 {
		t.Fatalf("embeddings after a delete = %d; want 3", n)
	}
}

// The fusion keeps each ranking's best row: neither the one row holding the
// query's rare word (full-text's first, too far from the query's vector to
// be a semantic candidate) nor the row an embedding model puts first (no
// word in common) is pushed out by rows both rankings put in their middle.
// With reciprocal-rank fusion's usual k of 60 they were: 25 rows sharing a
// frequent word and vaguely alike outscored both.
func TestSearchFusionKeepsEachRankingsBestRow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := withVectors(t)
	conv, _ := store.CurrentConversation(ctx, memory.Chat{ID: 1}, 1)
	var texts []string
	for i := range 25 {
		texts = append(texts, fmt.Sprintf("Another joke about cats, number %d", i))
	}
	texts = append(texts, "Booked tickets to Tokyo for May", "We flew to Japan in spring")
	ids := say(t, store, conv, texts...)
	exact, semantic := ids[25], ids[26]
	rows, err := store.Jobs().RowsToEmbed(ctx, 0, 100, 0)
	if err != nil || len(rows) != len(texts) {
		t.Fatalf("rows to embed = %d, %v", len(rows), err)
	}
	// The query's vector is (1, 0, 0). The jokes are near it, the newer the
	// farther (so full-text, which ties them and takes the newest first,
	// and the semantic ranking order them oppositely); the Tokyo row is
	// orthogonal, the Japan row the nearest.
	var vecs [][]float32
	for i := range 25 {
		vecs = append(vecs, []float32{1, 0.05 * float32(i+1), 0})
	}
	vecs = append(vecs, []float32{0, 0, 1}, []float32{1, 0, 0})
	if err := store.Index().SaveEmbeddings(ctx, "m", rows, vecs, memory.LLMCall{}, rows[len(rows)-1].ID); err != nil {
		t.Fatal(err)
	}
	q := memory.Search{ConversationID: conv, Text: "joke Tokyo", Limit: 5}
	if got := found(t, store, q); len(got) == 0 || got[0] != exact {
		t.Fatalf("full-text alone found %v; want the Tokyo row %d first", got, exact)
	}
	q.Embedding, q.EmbeddingModel = []float32{1, 0, 0}, "m"
	got := found(t, store, q)
	if !slices.Contains(got[:min(2, len(got))], exact) || !slices.Contains(got[:min(2, len(got))], semantic) {
		t.Fatalf("fused search found %v; want the Tokyo row %d and the Japan row %d first", got, exact, semantic)
	}
}

func TestRecallWorksWithoutPgvector(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := pgtest.New(t)
	store, err := memory.Open(ctx, dsn, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	// A server without pgvector: the table and the extension are gone.
	if _, err := store.Pool().Exec(ctx, `DROP TABLE IF EXISTS message_embeddings; DROP EXTENSION IF EXISTS vector`); err != nil {
		t.Fatal(err)
	}
	conv, _ := store.CurrentConversation(ctx, memory.Chat{ID: 1}, 1)
	ids := say(t, store, conv, "We adopted two puppies", "Congratulations")
	// Embeddings given to a store without vectors are ignored: full-text alone.
	q := memory.Search{ConversationID: conv, Text: "puppy", Embedding: []float32{1, 0}, EmbeddingModel: "m"}
	if got := found(t, store, q); len(got) != 1 || got[0] != ids[0] {
		t.Fatalf("full-text search without pgvector found %v", got)
	}
	rows, _ := store.Jobs().RowsToEmbed(ctx, 0, 10, 0)
	if err := store.Index().SaveEmbeddings(ctx, "m", rows, [][]float32{{1, 0}, {0, 1}}, memory.LLMCall{}, rows[1].ID); err != nil {
		t.Fatalf("saving embeddings without pgvector: %v", err)
	}
	turn, err := store.StartTurn(ctx, memory.TurnStart{User: memory.User{TelegramUserID: 1}, Chat: memory.Chat{ID: 1}, Content: "puppies?", HistoryLimit: 1,
		Recall: memory.Recall{Limit: 3, Text: "puppies?", Embedding: []float32{1, 0}, EmbeddingModel: "m"}})
	if err != nil || !slices.Equal(snippetIDs(turn.Recalled), ids) || turn.Recalled[0].Hit != 1 {
		t.Fatalf("auto-recall without pgvector = %+v, %v", turn, err)
	}
}

func TestMigrationsPassWithoutTheRightToCreatePgvector(t *testing.T) {
	t.Parallel()
	pgtest.RequireVectors(t) // the right is what is missing, not the extension
	ctx := context.Background()
	store := open(t)
	// What migration 00019 does on a server where the role may not create
	// the extension: it says no instead of failing.
	var ok bool
	err := store.Pool().QueryRow(ctx, `SELECT membot_enable_vectors()`).Scan(&ok)
	if err != nil || !ok {
		t.Fatalf("enable vectors as a superuser = %v, %v", ok, err)
	}
	if _, err := store.Pool().Exec(ctx, `DROP TABLE IF EXISTS message_embeddings; DROP EXTENSION IF EXISTS vector`); err != nil {
		t.Fatal(err)
	}
	tx, err := store.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `CREATE ROLE membot_plain_role_in_tx NOLOGIN; GRANT ALL ON SCHEMA public TO membot_plain_role_in_tx;
		SET LOCAL ROLE membot_plain_role_in_tx`); err != nil {
		t.Fatal(err)
	}
	if err := tx.QueryRow(ctx, `SELECT membot_enable_vectors()`).Scan(&ok); err != nil || ok {
		t.Fatalf("enable vectors as a plain role = %v, %v; want false, no error", ok, err)
	}
}

func TestFactsAreSupersededAndForgottenWithTheirHistory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	bob := memory.User{TelegramUserID: 7, FirstName: "Bob"}
	if _, err := store.StartTurn(ctx, memory.TurnStart{User: bob, Chat: memory.Chat{ID: 7}, Content: "hi", HistoryLimit: 5}); err != nil {
		t.Fatal(err)
	}
	conv, _ := store.CurrentConversation(ctx, memory.Chat{ID: 7}, 7)
	ids := say(t, store, conv, "I live in Kazan", "Noted", "I moved to Perm", "Nice")
	ex := jobs.Exchange{AnswerID: ids[1], ConversationID: conv, ChatID: 7, UserID: 7, UserMessageID: ids[0]}
	if err := store.LongTerm().SaveExtracted(ctx, ex, []memory.FactChange{{Text: "Lives in Kazan"}, {Text: "Is called Bob"}},
		memory.LLMCall{Model: "mm", Purpose: memory.PurposeFacts}); err != nil {
		t.Fatal(err)
	}
	facts, _ := store.LongTerm().Facts(ctx, 7)
	if len(facts) != 2 || facts[0].Origin != memory.OriginAuto || facts[0].SourceMessageID != ids[0] {
		t.Fatalf("extracted facts = %+v", facts)
	}
	kazan := facts[0].ID
	if facts[0].Content != "Lives in Kazan" {
		kazan = facts[1].ID
	}
	ex = jobs.Exchange{AnswerID: ids[3], ConversationID: conv, ChatID: 7, UserID: 7, UserMessageID: ids[2]}
	if err := store.LongTerm().SaveExtracted(ctx, ex, []memory.FactChange{{ID: kazan, Text: "Lives in Perm"}}, memory.LLMCall{}); err != nil {
		t.Fatal(err)
	}
	facts, _ = store.LongTerm().Facts(ctx, 7)
	if got := contents(facts); got != "Lives in Perm|Is called Bob" {
		t.Fatalf("current facts = %s", got)
	}
	var supersededBy, source int64
	var until *time.Time
	store.Pool().QueryRow(ctx, `SELECT superseded_by, valid_until, source_message_id FROM memories WHERE id = $1`, kazan).Scan(&supersededBy, &until, &source)
	if supersededBy != facts[0].ID || until == nil || source != ids[0] || facts[0].SourceMessageID != ids[2] {
		t.Fatalf("the old fact: superseded_by %d, valid_until %v, source %d; new %+v", supersededBy, until, source, facts[0])
	}
	// The cursor moved past both exchanges, and the calls say what they were for.
	var cursor int64
	var purposes string
	store.Pool().QueryRow(ctx, `SELECT last_message_id FROM memory_jobs WHERE job = 'after_turn'`).Scan(&cursor)
	store.Pool().QueryRow(ctx, `SELECT string_agg(purpose, ',') FROM llm_calls`).Scan(&purposes)
	if cursor != ids[3] || purposes != "facts" {
		t.Fatalf("cursor %d (want %d), purposes %q", cursor, ids[3], purposes)
	}
	if got, _ := store.Jobs().AnsweredTurns(ctx, cursor, 10, 0); len(got) != 0 {
		t.Fatalf("answered turns after the cursor = %+v", got)
	}
	// Forgetting the current fact takes its history too.
	if _, err := store.LongTerm().ForgetFactNumber(ctx, 7, 1); err != nil {
		t.Fatal(err)
	}
	var left int
	store.Pool().QueryRow(ctx, `SELECT count(*) FROM memories WHERE telegram_user_id = 7`).Scan(&left)
	if left != 1 {
		t.Fatalf("rows left after forgetting the changed fact = %d; want 1", left)
	}
}

func TestSummariesCoverWhatLeftTheWindowAndGoWithTheConversation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	bob := memory.User{TelegramUserID: 8}
	if _, err := store.StartTurn(ctx, memory.TurnStart{User: bob, Chat: memory.Chat{ID: 8}, Content: "start", HistoryLimit: 5}); err != nil {
		t.Fatal(err)
	}
	conv, _ := store.CurrentConversation(ctx, memory.Chat{ID: 8}, 8)
	var texts []string
	for range 12 {
		texts = append(texts, "q", "a")
	}
	ids := say(t, store, conv, texts...)
	prev, all, err := store.LongTerm().Unsummarised(ctx, conv, 10, 100)
	if err != nil || prev != "" || len(all) != 15 {
		t.Fatalf("unsummarised = %q, %d rows, %v", prev, len(all), err)
	}
	// A row is shown at the time it was written (a message that reached
	// the bot late), not when it was stored.
	written := time.Date(2025, 5, 1, 9, 30, 0, 0, time.UTC)
	store.Pool().Exec(ctx, `UPDATE messages SET written_at = $2 WHERE id = $1`, all[3].ID, written)
	if _, again, _ := store.LongTerm().Unsummarised(ctx, conv, 10, 100); !again[3].WrittenAt.Equal(written) || again[4].WrittenAt.Year() == 2025 {
		t.Fatalf("the rows to summarise are dated %v, %v; want %v for the late one", again[3].WrittenAt, again[4].WrittenAt, written)
	}
	// A long backlog is summarised from its newest rows.
	if _, newest, _ := store.LongTerm().Unsummarised(ctx, conv, 10, 8); len(newest) != 8 || newest[0].ID != all[7].ID || newest[7].ID != all[14].ID {
		t.Fatalf("the newest 8 = %+v", newest)
	}
	rows := all[:8]
	sum := memory.Summary{ConversationID: conv, ChatID: 8, FromMessageID: rows[0].ID, ToMessageID: rows[7].ID, Rows: 8, Content: "They said q and a.", Model: "mm"}
	if err := store.LongTerm().SaveSummary(ctx, sum, memory.LLMCall{Model: "mm", Purpose: memory.PurposeSummary}); err != nil {
		t.Fatal(err)
	}
	prev, rows, _ = store.LongTerm().Unsummarised(ctx, conv, 10, 100)
	// 25 rows, 10 in the window, 8 summarised: 7 left, from after the summary.
	if prev != "They said q and a." || len(rows) != 7 || rows[0].ID != sum.ToMessageID+1 || rows[6].ID >= ids[len(ids)-10] {
		t.Fatalf("after a summary: %q, %+v", prev, rows)
	}
	turn, err := store.StartTurn(ctx, memory.TurnStart{User: bob, Chat: memory.Chat{ID: 8}, Content: "next", HistoryLimit: 10})
	if err != nil || turn.Summary != "They said q and a." {
		t.Fatalf("the turn's summary = %q, %v", turn.Summary, err)
	}
	if _, err := store.Reset(ctx, memory.Chat{ID: 8}, 8); err != nil {
		t.Fatal(err)
	}
	store.Pool().Exec(ctx, `DELETE FROM conversations WHERE reset_at IS NOT NULL`)
	var n int
	store.Pool().QueryRow(ctx, `SELECT count(*) FROM conversation_summaries`).Scan(&n)
	turn, _ = store.StartTurn(ctx, memory.TurnStart{User: bob, Chat: memory.Chat{ID: 8}, Content: "fresh", HistoryLimit: 10})
	if n != 0 || turn.Summary != "" {
		t.Fatalf("after /new: %d summaries, the turn's %q", n, turn.Summary)
	}
}

// A long conversation: a rare word is found in rows of any age (through the
// index), a frequent one among the newest rows only (see searchShape in
// search.go), and the rare word outranks the frequent one.
func TestSearchInALongConversationFindsRareWordsAtAnyAgeAndFrequentOnesRecently(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	conv, _ := store.CurrentConversation(ctx, memory.Chat{ID: 1}, 1)
	// 3,000 rows of weather talk; rows 10 and 2,600 also mention the parrot.
	// The first five are the shortest (BM25 ranks them first among rows that
	// only say "weather"), but they are older than the newest 1,000.
	row := fill(t, store, conv, 3000, `CASE WHEN g <= 5 THEN 'Weather!'
		WHEN g IN (10, 2600) THEN 'The weather is fine and my parrot Kesha sings ' || g
		ELSE 'The weather is grey today, note ' || g END`)

	if got := found(t, store, memory.Search{ConversationID: conv, Text: "parrots"}); !slices.Equal(got, []int64{row(2600), row(10)}) {
		t.Fatalf("parrots found %v; want rows %d and %d", got, row(2600), row(10))
	}
	if got := found(t, store, memory.Search{ConversationID: conv, Text: "weather parrot", Limit: 3}); len(got) != 3 ||
		!slices.Contains(got[:2], row(10)) || !slices.Contains(got[:2], row(2600)) {
		t.Fatalf("weather parrot found %v; want the two parrot rows first", got)
	}
	got := found(t, store, memory.Search{ConversationID: conv, Text: "weather", Limit: 10})
	if len(got) != 10 {
		t.Fatalf("weather found %v", got)
	}
	for _, id := range got {
		if id < row(2001) {
			t.Fatalf("weather found row %d, older than the newest 1,000 (%v)", id-row(1)+1, got)
		}
	}
	// Before row 500 the conversation is short: every row is read, old ones too.
	if got := found(t, store, memory.Search{ConversationID: conv, Text: "weather parrot", BeforeID: row(500), Limit: 1}); !slices.Equal(got, []int64{row(10)}) {
		t.Fatalf("weather parrot before row 500 found %v; want row %d", got, row(10))
	}
}

// The bot's connections run without PostgreSQL's JIT (it compiled the
// recall statement for longer than the search took), unless the database
// URL asks for it.
func TestConnectionsRunWithoutJITUnlessTheURLSetsIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := pgtest.New(t)
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	for _, c := range []struct{ dsn, want string }{{dsn, "off"}, {dsn + sep + "jit=on", "on"}} {
		store, err := memory.Open(ctx, c.dsn, 1)
		if err != nil {
			t.Fatal(err)
		}
		var jit string
		store.Pool().QueryRow(ctx, `SHOW jit`).Scan(&jit)
		store.Close()
		if jit != c.want {
			t.Fatalf("jit with %q = %q; want %q", strings.TrimPrefix(c.dsn, dsn), jit, c.want)
		}
	}
}

// recall starts a turn of user 1 in chat 1 saying text, with a window of
// history rows, and returns what its auto-recall found (without the rows
// shown beside them).
func recall(t *testing.T, store *memory.Store, update int64, text string, history int) []memory.Snippet {
	t.Helper()
	turn, err := store.StartTurn(context.Background(), memory.TurnStart{User: memory.User{TelegramUserID: 1}, Chat: memory.Chat{ID: 1}, UpdateID: update,
		Content: text, HistoryLimit: history, Recall: memory.Recall{Limit: 3, Text: text}})
	if err != nil {
		t.Fatal(err)
	}
	return hits(turn.Recalled)
}

// recalledIDs is recall's rows' ids.
func recalledIDs(t *testing.T, store *memory.Store, update int64, text string, history int) []int64 {
	t.Helper()
	return snippetIDs(recall(t, store, update, text, history))
}

// The turn's auto-recall takes only rows that share a word the
// conversation has used at most 20 times (see autoRecallShape): a common
// word alone brings nothing into the prompt unasked, a rare one does,
// however old its row.
func TestAutoRecallTakesRowsThatShareARareWord(t *testing.T) {
	t.Parallel()
	eachRecallPath(t, func(t *testing.T, store *memory.Store, update func() int64) {
		conv, _ := store.CurrentConversation(context.Background(), memory.Chat{ID: 1}, 1)
		parrot := fill(t, store, conv, 100, `CASE WHEN g = 3 THEN 'My parrot Kesha sings in the morning'
			ELSE 'The weather is grey today, note ' || g END`)(3)
		if got := recalledIDs(t, store, update(), "how is the weather?", 10); len(got) != 0 {
			t.Fatalf("a common word recalled %v", got)
		}
		got := recall(t, store, update(), "the weather and my parrots", 10)
		if len(got) != 1 || got[0].MessageID != parrot || got[0].Text != "My parrot Kesha sings in the morning" {
			t.Fatalf("a rare word recalled %+v; want row %d as it is", got, parrot)
		}
		for _, history := range []int{1, 2} { // a window of none or one row besides the turn's
			if got := recalledIDs(t, store, update(), "Kesha?", history); !slices.Equal(got, []int64{parrot}) {
				t.Fatalf("with HISTORY_LIMIT %d a rare word recalled %v; want [%d]", history, got, parrot)
			}
		}
	})
}

// eachRecallPath runs test for a turn's auto-recall when the turn's row is
// the newest of its conversation (a turn of no update) and when its update
// names it. update gives each turn's update.
func eachRecallPath(t *testing.T, test func(t *testing.T, store *memory.Store, update func() int64)) {
	for _, path := range []struct {
		name  string
		first int64
	}{{"no update", 0}, {"an update", 1000}} {
		t.Run(path.name, func(t *testing.T) {
			t.Parallel()
			next := path.first
			test(t, open(t), func() int64 {
				if next > 0 {
					next++
				}
				return next
			})
		})
	}
}

// A word counts as used in the rows the model sees too: one the window
// already holds more than 20 times brings back nothing older, however
// rare it was before; the row's other, rare word still does.
func TestAutoRecallCountsTheWindowsUses(t *testing.T) {
	t.Parallel()
	eachRecallPath(t, func(t *testing.T, store *memory.Store, update func() int64) {
		conv, _ := store.CurrentConversation(context.Background(), memory.Chat{ID: 1}, 1)
		kettle := fill(t, store, conv, 40, `CASE WHEN g = 1 THEN 'Brunhilde the kettle whistles'
			WHEN g <= 16 THEN 'The weather is grey, note ' || g ELSE 'The kettle boiled, note ' || g END`)(1)
		recalled := func(text string) []int64 { return recalledIDs(t, store, update(), text, 30) }
		// The window: this row and rows 12 to 40, 25 of them about the kettle.
		if got := recalled("the kettle?"); len(got) != 0 {
			t.Fatalf("a word the window uses 25 times recalled %v", got)
		}
		if got := recalled("Brunhilde?"); !slices.Equal(got, []int64{kettle}) {
			t.Fatalf("a rare word recalled %v; want row %d", got, kettle)
		}
	})
}

// A stem a turn finds used more than 20 times is written down for the
// conversation (conversation_frequent_stems) and not looked up again; when
// the conversation loses rows the list goes, and the stem, rare again,
// brings its old row back.
func TestAutoRecallLearnsFrequentStemsAndForgetsThemWithRows(t *testing.T) {
	t.Parallel()
	eachRecallPath(t, func(t *testing.T, store *memory.Store, update func() int64) {
		ctx := context.Background()
		conv, _ := store.CurrentConversation(ctx, memory.Chat{ID: 1}, 1)
		row := fill(t, store, conv, 60, `CASE WHEN g = 1 THEN 'Brunhilde the kettle whistles'
			WHEN g <= 25 THEN 'The kettle boiled, note ' || g ELSE 'The weather is grey, note ' || g END`)
		learned := func() []string {
			rows, _ := store.Pool().Query(ctx, `SELECT lexeme FROM conversation_frequent_stems WHERE conversation_id = $1 ORDER BY lexeme`, conv)
			got, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				t.Fatal(err)
			}
			return got
		}
		if got := recalledIDs(t, store, update(), "the kettle?", 10); len(got) != 0 {
			t.Fatalf("a word used 26 times recalled %v", got)
		}
		if got := learned(); !slices.Equal(got, []string{"kettl"}) {
			t.Fatalf("learned %q; want the kettle's stem", got)
		}
		if got := recalledIDs(t, store, update(), "the kettle?", 10); len(got) != 0 {
			t.Fatalf("a word known to be used often recalled %v", got)
		}
		// The retention purge takes notes 2 to 20: the kettle is rare again.
		if _, err := store.Pool().Exec(ctx, `DELETE FROM messages WHERE id BETWEEN $1 AND $2`, row(2), row(20)); err != nil {
			t.Fatal(err)
		}
		if got := learned(); len(got) != 0 {
			t.Fatalf("after a delete the conversation still lists %q", got)
		}
		if got := recalledIDs(t, store, update(), "the kettle?", 10); !slices.Contains(got, row(1)) {
			t.Fatalf("the kettle, rare again, recalled %v; want row %d among them", got, row(1))
		}
	})
}

// A delete that runs beside a turn counting a stem's uses leaves no stem
// listed as frequent that the rows left use rarely (migration 00028):
// a delete that holds the conversation first makes the turn skip writing
// (it does not wait); a turn that holds it first makes the delete wait
// and then drop what the turn wrote.
func TestAFrequentStemCountedBesideADeleteIsNotLearned(t *testing.T) {
	t.Parallel()
	for _, deleteFirst := range []bool{true, false} {
		t.Run(fmt.Sprintf("delete first %v", deleteFirst), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			store := open(t)
			conv, _ := store.CurrentConversation(ctx, memory.Chat{ID: 1}, 1)
			row := fill(t, store, conv, 60, `CASE WHEN g = 1 THEN 'Brunhilde the kettle whistles'
				WHEN g <= 25 THEN 'The kettle boiled, note ' || g ELSE 'The weather is grey, note ' || g END`)
			if _, err := store.Pool().Exec(ctx, `INSERT INTO messages (conversation_id, role, content, update_id)
				VALUES ($1, 'user', 'the kettle?', 5000)`, conv); err != nil {
				t.Fatal(err)
			}
			// The kettle: 26 uses with the turn's row, 7 once notes 2 to 20 are gone.
			deleteNotes := func(ctx context.Context, db interface {
				Exec(context.Context, string, ...any) (pgconn.CommandTag, error)
			}) error {
				_, err := db.Exec(ctx, `DELETE FROM messages WHERE id BETWEEN $1 AND $2`, row(2), row(20))
				return err
			}
			count := func(ctx context.Context, tx pgx.Tx) error {
				var found bool
				return tx.QueryRow(ctx, memory.TurnFoundSQL, pgx.NamedArgs{
					"chat_id": 1, "update_id": 5000, "history_limit": 10, "recall_limit": 3, "message_thread_id": 0,
				}).Scan(&found)
			}
			first, err := store.Pool().Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer first.Rollback(ctx)
			if deleteFirst {
				err = deleteNotes(ctx, first)
			} else {
				err = count(ctx, first)
			}
			if err != nil {
				t.Fatal(err)
			}
			second := make(chan error, 1)
			go func() {
				if deleteFirst {
					tx, err := store.Pool().Begin(ctx)
					if err == nil {
						defer tx.Rollback(ctx)
						if err = count(ctx, tx); err == nil {
							err = tx.Commit(ctx)
						}
					}
					second <- err
				} else {
					second <- deleteNotes(ctx, store.Pool())
				}
			}()
			if waited := waitForLockOrDone(t, store, second); waited && deleteFirst {
				t.Fatal("the turn waited for the delete's lock on the conversation; it should skip it")
			}
			if err := first.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			if err := <-second; err != nil {
				t.Fatal(err)
			}
			var listed []string
			rows, _ := store.Pool().Query(ctx, `SELECT lexeme FROM conversation_frequent_stems WHERE conversation_id = $1`, conv)
			if listed, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
				t.Fatal(err)
			}
			if len(listed) != 0 {
				t.Fatalf("the conversation lists %q as frequent; the rows left use it 7 times", listed)
			}
			if got := recalledIDs(t, store, 5001, "the kettle?", 10); !slices.Contains(got, row(1)) {
				t.Fatalf("the kettle, rare after the delete, recalled %v; want row %d among them", got, row(1))
			}
		})
	}
}

// waitForLockOrDone waits until a statement of store's database waits for
// a lock (and says so), or done has a value (which it puts back).
func waitForLockOrDone(t *testing.T, store *memory.Store, done chan error) (waited bool) {
	t.Helper()
	for deadline := time.Now().Add(wait.Timeout()); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		select {
		case err := <-done:
			done <- err
			return false
		default:
		}
		var waiting bool
		if err := store.Pool().QueryRow(context.Background(), `SELECT EXISTS (SELECT FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock')`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting {
			return true
		}
	}
	t.Fatal("the second transaction neither waited nor finished in 10 s")
	return false
}

// A transaction raises a conversation's stems_version once, however many
// of its rows it changes or deletes, statement by statement or row by
// row (an UPDATE fires the trigger for each row).
func TestATransactionRaisesTheStemsVersionOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	conv, _ := store.CurrentConversation(ctx, memory.Chat{ID: 1}, 1)
	row := fill(t, store, conv, 200, `'note ' || g`)
	version := func() (v int64) {
		if err := store.Pool().QueryRow(ctx, `SELECT stems_version FROM conversations WHERE id = $1`, conv).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	for i, step := range [][]string{
		{`UPDATE messages SET content = content || ' edited' WHERE conversation_id = $1 AND id > $2`},
		{`DELETE FROM messages WHERE conversation_id = $1 AND id < $2`, `DELETE FROM messages WHERE conversation_id = $1 AND id < $2 + 50`},
	} {
		tx, err := store.Pool().Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		for _, sql := range step {
			if _, err := tx.Exec(ctx, sql, conv, row(50)); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if got := version(); got != int64(i+1) {
			t.Fatalf("after transaction %d the stems version is %d; want %d", i+1, got, i+1)
		}
	}
}

// The full-text index's pending list (new keys not yet merged, read whole
// by every lookup) stays small however many rows come in (migration 00024).
func TestSearchIndexPendingListStaysSmall(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	conv, _ := store.CurrentConversation(ctx, memory.Chat{ID: 1}, 1)
	fill(t, store, conv, 3000, `'note ' || g || ' word' || (g * 7919 % 10007) || ' other' || (g * 104729 % 10009)`)
	if _, err := store.Pool().Exec(ctx, `CREATE EXTENSION IF NOT EXISTS pgstattuple`); err != nil {
		t.Fatal(err)
	}
	var pages int
	if err := store.Pool().QueryRow(ctx, `SELECT pending_pages FROM pgstatginindex('messages_search')`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if pages > 8 {
		t.Fatalf("the full-text index has %d pending pages after 3,000 rows; want at most 8 (64 kB)", pages)
	}
}

// The semantic side compares the query with the newest 1,000 embeddings
// of the conversation only (see semanticRows): an older row is found by
// its words, not by its meaning.
func TestSemanticSearchReadsTheNewestEmbeddingsOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := withVectors(t)
	conv, _ := store.CurrentConversation(ctx, memory.Chat{ID: 1}, 1)
	// 1,002 rows; the two oldest are nearest the query's meaning.
	first := fill(t, store, conv, 1002, `'note ' || g`)(1)
	if _, err := store.Pool().Exec(ctx, `INSERT INTO message_embeddings (message_id, conversation_id, model, embedding)
		SELECT id, conversation_id, 'm', CASE WHEN id <= $2 THEN '[1,0]' ELSE '[0,1]' END::vector
		FROM messages WHERE conversation_id = $1`, conv, first+1); err != nil {
		t.Fatal(err)
	}
	got := found(t, store, memory.Search{ConversationID: conv, Text: "unrelated", Embedding: []float32{1, 0}, EmbeddingModel: "m", Limit: 1})
	if len(got) != 1 || got[0] == first || got[0] == first+1 {
		t.Fatalf("semantic search found %v; want a row of the newest 1,000, not %d or %d", got, first, first+1)
	}
	// Before row 1,001 the first two are among the newest 1,000.
	got = found(t, store, memory.Search{ConversationID: conv, Text: "unrelated", Embedding: []float32{1, 0}, EmbeddingModel: "m", Limit: 1, BeforeID: first + 1000})
	if !slices.Equal(got, []int64{first + 1}) {
		t.Fatalf("semantic search before row 1,001 found %v; want %d", got, first+1)
	}
}

// A retried turn (its user row already stored, the first attempt's step
// rows after it) recalls what the first attempt recalled: when the steps
// pushed the row out of the window too, the steps between the row and the
// window are counted nowhere, as the ranking counts, so a word they
// repeat stays rare and still brings back the old row.
func TestAutoRecallOfARetriedTurn(t *testing.T) {
	t.Parallel()
	for name, steps := range map[string]string{
		"three tool rows":             `SELECT $1, 'tool', '{"ok": true}' FROM generate_series(1, 3)`,
		"20 rows about the same word": `SELECT $1, 'assistant', 'checking the kettle, step ' || g FROM generate_series(1, 20) g`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			store := open(t)
			conv, _ := store.CurrentConversation(ctx, memory.Chat{ID: 1}, 1)
			kettle := fill(t, store, conv, 30, `CASE WHEN g = 1 THEN 'Brunhilde the kettle whistles' ELSE 'The weather is grey, note ' || g END`)(1)
			start := func() []int64 { return recalledIDs(t, store, 5, "the kettle?", 3) }
			if got := start(); !slices.Equal(got, []int64{kettle}) {
				t.Fatalf("first attempt recalled %v; want [%d]", got, kettle)
			}
			if _, err := store.Pool().Exec(ctx, `INSERT INTO messages (conversation_id, role, content) `+steps, conv); err != nil {
				t.Fatal(err)
			}
			if got := start(); !slices.Equal(got, []int64{kettle}) {
				t.Fatalf("the retried turn recalled %v; want [%d]", got, kettle)
			}
		})
	}
}

// /retry answers the last user row again with its auto-recall too.
func TestARetryRecallsAsItsTurnDid(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	conv, _ := store.CurrentConversation(ctx, memory.Chat{ID: 1}, 1)
	kettle := fill(t, store, conv, 40, `CASE WHEN g = 1 THEN 'Brunhilde the kettle whistles' ELSE 'The weather is grey, note ' || g END`)(1)
	if got := recalledIDs(t, store, 5, "Brunhilde?", 10); !slices.Equal(got, []int64{kettle}) {
		t.Fatalf("the turn recalled %v; want [%d]", got, kettle)
	}
	for _, limit := range []int{3, 0} {
		turn, err := store.StartRetry(ctx, memory.RetryStart{Chat: memory.Chat{ID: 1}, UserID: 1, UpdateID: 6, HistoryLimit: 10, RecallLimit: limit})
		if err != nil {
			t.Fatal(err)
		}
		want := []int64{kettle}
		if limit == 0 {
			want = nil
		}
		if got := snippetIDs(hits(turn.Recalled)); !slices.Equal(got, want) {
			t.Fatalf("/retry with AUTO_RECALL %d recalled %v; want %v", limit, got, want)
		}
	}
}

// A one-character word (searchWords drops it too) does not alone bring an
// old row into the prompt.
func TestAutoRecallSkipsOneCharacterWords(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	conv, _ := store.CurrentConversation(ctx, memory.Chat{ID: 1}, 1)
	fill(t, store, conv, 40, `CASE WHEN g = 3 THEN 'Fine, 7 then' ELSE 'The weather is grey today' END`)
	if got := recall(t, store, 0, "I have 7 kittens", 10); len(got) != 0 {
		t.Fatalf("recalled %+v by the stem \"7\" alone", got)
	}
}

// A turn whose database is gone fails as unavailable (to be handled again
// later), not as a statement of its own, its auto-recall included.
func TestATurnWithItsRecallFailsAsUnavailable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn, err := url.Parse(pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	proxy, err := tcpproxy.New(dsn.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Close)
	dsn.Host = proxy.Addr()
	store, err := memory.Open(ctx, dsn.String(), 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(store.Close)
	start := memory.TurnStart{User: memory.User{TelegramUserID: 1}, Chat: memory.Chat{ID: 1}, UpdateID: 5, Content: "my parrot Kesha",
		HistoryLimit: 30, Recall: memory.Recall{Limit: 3, Text: "my parrot Kesha"}}
	if _, err := store.StartTurn(ctx, start); err != nil {
		t.Fatal(err)
	}
	proxy.Cut()
	start.UpdateID = 6
	if _, err := store.StartTurn(ctx, start); !errors.Is(err, memory.ErrUnavailable) {
		t.Fatalf("with the database gone StartTurn said %v; want ErrUnavailable", err)
	}
}
