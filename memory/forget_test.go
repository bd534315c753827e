package memory_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/membot/membot/memory"
)

func TestAForgottenFactTakesTheExchangeItCameFromAwayFromEveryModel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	chat := memory.Chat{ID: 7}
	if err := store.Access().UpsertUser(ctx, memory.User{TelegramUserID: 7, FirstName: "Bob"}); err != nil {
		t.Fatal(err)
	}
	conv, _ := store.CurrentConversation(ctx, chat, 7)
	exchange(t, store, conv, "my gym locker is 4711", true)
	exchange(t, store, conv, "what is 2+2", true)
	exchange(t, store, conv, "hello", false)
	rows, err := store.LastMessages(ctx, conv, 100)
	if err != nil {
		t.Fatal(err)
	}
	fact, err := store.LongTerm().Remember(ctx, 7, 0, "Locker is 4711", rows[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	call := memory.LLMCall{UserID: 7, ChatID: 7, Model: "m", Purpose: memory.PurposeSummary, Status: "ok"}
	if err := store.LongTerm().SaveSummary(ctx, memory.Summary{ConversationID: conv, ChatID: 7, FromMessageID: rows[0].ID,
		ToMessageID: rows[4].ID, Rows: 2, Content: "The locker is 4711.", Model: "m"}, call); err != nil {
		t.Fatal(err)
	}
	// The exchanges' tools are known to the after-turn job.
	turns, err := store.Jobs().AnsweredTurns(ctx, 0, 10, 0)
	if err != nil || len(turns) != 3 || !slices.Equal(turns[1].Tools, []string{"calculator"}) || len(turns[2].Tools) != 0 {
		t.Fatalf("answered turns = %+v, %v", turns, err)
	}
	if found, err := store.Index().SearchMessages(ctx, memory.Search{ConversationID: conv, Text: "gym locker", Limit: 5}); err != nil || len(found) == 0 {
		t.Fatalf("search_history before the forget: %+v, %v", found, err)
	}

	if _, err := store.LongTerm().ForgetFact(ctx, 7, fact.ID); err != nil {
		t.Fatal(err)
	}
	// Its whole exchange (question, call, result, answer, note) and nothing
	// else is forgotten; the user's summaries are gone.
	if sums, err := store.LongTerm().Summaries(ctx, conv); err != nil || len(sums) != 0 {
		t.Fatalf("summaries after the forget = %+v, %v", sums, err)
	}
	retry, err := store.StartRetry(ctx, memory.RetryStart{Chat: chat, UserID: 7, HistoryLimit: 30, RecallLimit: 3})
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, m := range retry.History {
		seen = append(seen, m.Content)
	}
	if got := strings.Join(seen, "|"); strings.Contains(got, "4711") || len(seen) != 7 {
		t.Fatalf("the window after the forget: %q", got)
	}
	found, err := store.Index().SearchMessages(ctx, memory.Search{ConversationID: conv, Text: "gym locker", Limit: 5})
	if err != nil || len(found) != 0 {
		t.Fatalf("search_history finds a forgotten row: %+v, %v", found, err)
	}
	// Nor is it shown beside a hit next to it.
	found, err = store.Index().SearchMessages(ctx, memory.Search{ConversationID: conv, Text: "answer", Limit: 5})
	if err != nil || len(found) == 0 || strings.Contains(fmt.Sprintf("%+v", found), "4711") {
		t.Fatalf("search_history beside a forgotten row: %+v, %v", found, err)
	}
	turns, err = store.Jobs().AnsweredTurns(ctx, 0, 10, 0)
	if err != nil || len(turns) != 2 || strings.Contains(turns[0].UserText, "4711") {
		t.Fatalf("the after-turn job reads a forgotten exchange: %+v, %v", turns, err)
	}

	// A fact of the newest exchange, forgotten: /retry has nothing to
	// answer again (it would show the row to the model).
	newest, err := store.LongTerm().Remember(ctx, 7, 0, "Says hello", retry.UserMessageID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.LongTerm().ForgetFactNumber(ctx, 7, 1); err != nil || newest.ID == 0 {
		t.Fatal(err)
	}
	if _, err := store.StartRetry(ctx, memory.RetryStart{Chat: chat, UserID: 7, HistoryLimit: 30}); !errors.Is(err, memory.ErrNoUserMessage) {
		t.Fatalf("retry of a forgotten row: %v", err)
	}
	// Forgetting all with no fact left drops nothing more and fails nothing.
	if n, err := store.LongTerm().ForgetAllFacts(ctx, 7); err != nil || n != 0 {
		t.Fatalf("forget all = %d, %v", n, err)
	}
}

// A summary written while its rows were forgotten (the summarizer read
// them before /forget, and saves after it) is not stored: it may hold the
// fact. Its model call is recorded all the same.
func TestASummaryOfRowsForgottenMeanwhileIsNotStored(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	chat := memory.Chat{ID: 8}
	if err := store.Access().UpsertUser(ctx, memory.User{TelegramUserID: 8, FirstName: "Ann"}); err != nil {
		t.Fatal(err)
	}
	conv, _ := store.CurrentConversation(ctx, chat, 8)
	exchange(t, store, conv, "my gym locker is 4711", false)
	exchange(t, store, conv, "hello", false)
	rows, err := store.LastMessages(ctx, conv, 100)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.LongTerm().Remember(ctx, 8, 0, "Locker is 4711", rows[0].ID); err != nil {
		t.Fatal(err)
	}
	// The summarizer read rows[0..3] before the forget ...
	read := memory.Summary{ConversationID: conv, ChatID: 8, FromMessageID: rows[0].ID, ToMessageID: rows[3].ID,
		Rows: 4, Content: "The locker is 4711.", Model: "m"}
	if _, err := store.LongTerm().ForgetAllFacts(ctx, 8); err != nil {
		t.Fatal(err)
	}
	// ... and saves after it.
	call := memory.LLMCall{UserID: 8, ChatID: 8, Model: "m", Purpose: memory.PurposeSummary, Status: "ok"}
	if err := store.LongTerm().SaveSummary(ctx, read, call); err != nil {
		t.Fatal(err)
	}
	if sums, err := store.LongTerm().Summaries(ctx, conv); err != nil || len(sums) != 0 {
		t.Fatalf("summaries of forgotten rows = %+v, %v", sums, err)
	}
	// A summary read after the forget is kept: its range spans the
	// forgotten rows, but it summarises only the two left.
	kept := memory.Summary{ConversationID: conv, ChatID: 8, FromMessageID: rows[0].ID, ToMessageID: rows[3].ID,
		Rows: 2, Content: "They said hello.", Model: "m"}
	if err := store.LongTerm().SaveSummary(ctx, kept, call); err != nil {
		t.Fatal(err)
	}
	if sums, err := store.LongTerm().Summaries(ctx, conv); err != nil || len(sums) != 1 || sums[0].Content != "They said hello." {
		t.Fatalf("summaries read after the forget = %+v, %v", sums, err)
	}
	var calls int
	if err := store.Pool().QueryRow(ctx, `SELECT count(*) FROM llm_calls WHERE purpose = 'summary' AND chat_id = 8`).Scan(&calls); err != nil || calls != 2 {
		t.Fatalf("summary calls recorded = %d, %v", calls, err)
	}
}
