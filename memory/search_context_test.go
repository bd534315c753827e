package memory_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/userdata"
)

// search_history's result: hits with their neighbours, several queries,
// a time the query names, the characters it is bounded to.

func TestSearchRanksARareWordAboveACommonOne(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	conv, _ := store.CurrentConversation(ctx, memory.Chat{ID: 1}, 1)
	var texts []string
	for i := 0; i < 40; i++ {
		texts = append(texts, "we talked about the weather again", "nice")
	}
	texts = append(texts, "the weather was grey when the zeppelin flew over", "wow")
	ids := say(t, store, conv, texts...)
	got := found(t, store, memory.Search{ConversationID: conv, Text: "weather zeppelin", Limit: 3})
	if len(got) == 0 || got[0] != ids[80] {
		t.Fatalf("weather zeppelin found %v; want the zeppelin row %d first", got, ids[80])
	}
}

func TestSearchShowsAHitWithItsNeighbours(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	conv, _ := store.CurrentConversation(ctx, memory.Chat{ID: 1}, 1)
	ids := say(t, store, conv,
		"Where did you put the spare key?",                       // 0
		"Under the flower pot by the back door, as always.",      // 1: the answer, no query word
		"Thanks, and what about the garage remote control unit?", // 2
		"ok", // 3: short, the row beyond it is shown too
		"It is in the glovebox of the red car, next to the manuals.", // 4
		"Unrelated talk about dinner plans for the weekend ahead.",   // 5
		"Sounds good to me, let us cook pasta on Saturday evening.",  // 6
	)
	found, err := store.Index().SearchMessages(ctx, memory.Search{ConversationID: conv, Text: "spare key", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := snippetIDs(found), []int64{ids[0], ids[1]}; !slices.Equal(got, want) {
		t.Fatalf("spare key shown as %v; want the hit and its answer %v, oldest first", got, want)
	}
	if found[0].Hit != 1 || found[1].Hit != 0 || !strings.Contains(found[0].Text, "«key»") || strings.Contains(found[1].Text, "«") {
		t.Fatalf("the hit and its neighbour: %+v", found)
	}
	found, err = store.Index().SearchMessages(ctx, memory.Search{ConversationID: conv, Text: "garage remote", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := snippetIDs(found), []int64{ids[1], ids[2], ids[3], ids[4]}; !slices.Equal(got, want) {
		t.Fatalf("garage remote shown as %v; want %v: the row before, the hit, the short reply and the row beyond it", got, want)
	}
	// The characters are bounded: the hit alone fits in 70.
	found, err = store.Index().SearchMessages(ctx, memory.Search{ConversationID: conv, Text: "garage remote", Limit: 1, Chars: 100})
	if err != nil {
		t.Fatal(err)
	}
	if got := snippetIDs(found); !slices.Equal(got, []int64{ids[2]}) {
		t.Fatalf("garage remote within 100 characters shown as %v; want the hit alone", got)
	}
	// Rows from BeforeID on are not shown as neighbours either.
	found, err = store.Index().SearchMessages(ctx, memory.Search{ConversationID: conv, Text: "spare key", Limit: 1, BeforeID: ids[1]})
	if err != nil {
		t.Fatal(err)
	}
	if got := snippetIDs(found); !slices.Equal(got, []int64{ids[0]}) {
		t.Fatalf("spare key before its answer shown as %v; want the hit alone", got)
	}
}

func TestSearchFusesSeveralQueries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	conv, _ := store.CurrentConversation(ctx, memory.Chat{ID: 1}, 1)
	var texts []string
	for i := 0; i < 10; i++ {
		texts = append(texts, "filler about nothing in particular", "indeed nothing")
	}
	texts = append(texts, "my sister Olga lives in Riga", "nice", "the violin lessons start in March", "good")
	ids := say(t, store, conv, texts...)
	got := found(t, store, memory.Search{ConversationID: conv, Text: "Olga", Queries: []string{"violin"}, Limit: 2})
	if len(got) != 2 || !slices.Contains(got, ids[20]) || !slices.Contains(got, ids[22]) {
		t.Fatalf("Olga and violin found %v; want both rows %d and %d", got, ids[20], ids[22])
	}
}

func TestSearchPutsTheRowsOfANamedTimeFirst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	conv, _ := store.CurrentConversation(ctx, memory.Chat{ID: 1}, 1)
	ids := say(t, store, conv, "the concert was loud and long, a great concert", "fun",
		"another concert, quiet this time", "ok then")
	may := time.Date(2025, 5, 10, 12, 0, 0, 0, time.UTC)
	if _, err := store.Pool().Exec(ctx, `UPDATE messages SET created_at = $2 WHERE id = $1`, ids[2], may); err != nil {
		t.Fatal(err)
	}
	all := found(t, store, memory.Search{ConversationID: conv, Text: "concert", Limit: 2})
	if len(all) != 2 || all[0] != ids[0] {
		t.Fatalf("concert found %v; want the row saying it twice first", all)
	}
	inMay := found(t, store, memory.Search{ConversationID: conv, Text: "concert", Limit: 2,
		From: time.Date(2025, 5, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)})
	if len(inMay) != 2 || inMay[0] != ids[2] {
		t.Fatalf("concert in May 2025 found %v; want the row of May %d first", inMay, ids[2])
	}
}

// A turn's auto-recall brings a hit with the rows beside it, within its
// characters, and never a row the model's window already holds.
func TestAutoRecallBringsAHitWithItsNeighboursOutsideTheWindow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	conv, _ := store.CurrentConversation(ctx, memory.Chat{ID: 1}, 1)
	rows := fill(t, store, conv, 40, `CASE WHEN g = 20 THEN 'Which vet treats Brunhilde the tortoise?'
		WHEN g = 21 THEN 'Doctor Ivanova on Lenina street, every Tuesday.'
		WHEN g = 27 THEN 'Brunhilde the tortoise ate a strawberry today'
		ELSE 'The weather is grey and rainy again today, note ' || g END`)
	turn := func(history int, r memory.Recall) []memory.Snippet {
		t.Helper()
		r.Text = "What about Brunhilde?"
		got, err := store.StartTurn(ctx, memory.TurnStart{User: memory.User{TelegramUserID: 1}, Chat: memory.Chat{ID: 1},
			Content: r.Text, HistoryLimit: history, Recall: r})
		if err != nil {
			t.Fatal(err)
		}
		return got.Recalled
	}
	// The window holds the rows from 26 on (16 of them with the turn's):
	// row 27 is seen anyway; row 20 comes with its answer and the row
	// before it, oldest first.
	got := turn(16, memory.Recall{Limit: 3})
	if ids, want := snippetIDs(got), []int64{rows(19), rows(20), rows(21)}; !slices.Equal(ids, want) {
		t.Fatalf("auto-recall brought %v; want the hit %d with its neighbours %v", ids, rows(20), want)
	}
	if got[1].Hit != 1 || got[0].Hit != 0 || got[2].Hit != 0 {
		t.Fatalf("the hit and its neighbours: %+v", got)
	}
	// Its characters bound it: 90 hold the hit alone.
	if ids := snippetIDs(turn(16, memory.Recall{Limit: 3, Chars: 90})); !slices.Equal(ids, []int64{rows(20)}) {
		t.Fatalf("auto-recall in 90 characters brought %v; want the hit %d alone", ids, rows(20))
	}
	// A window that starts at the answer (rows 21 to 43, the earlier
	// turns' rows among them): the answer is not brought again.
	if ids := snippetIDs(turn(23, memory.Recall{Limit: 3})); !slices.Equal(ids, []int64{rows(19), rows(20)}) {
		t.Fatalf("auto-recall beside the window brought %v; want %v", ids, []int64{rows(19), rows(20)})
	}
}

// Rows are shown at the time they were written (TurnStart.WrittenAt, the
// Telegram message's date), not when they were stored.
func TestSearchAndHistoryShowTheTimeARowWasWritten(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	written := time.Date(2024, 2, 29, 8, 15, 0, 0, time.UTC)
	turn, err := store.StartTurn(ctx, memory.TurnStart{User: memory.User{TelegramUserID: 1}, Chat: memory.Chat{ID: 1},
		Content: "the heron nests by the mill pond", WrittenAt: written, HistoryLimit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if h := turn.History; len(h) != 1 || !h[0].WrittenAt.Equal(written) || !h[0].CreatedAt.After(written) {
		t.Fatalf("the turn's history: %+v", h)
	}
	found, err := store.Index().SearchMessages(ctx, memory.Search{ConversationID: turn.ConversationID, Text: "heron", Limit: 1})
	if err != nil || len(found) != 1 || !found[0].WrittenAt.Equal(written) {
		t.Fatalf("search found %+v, %v; want the row written at %v", found, err, written)
	}
	msgs, err := userdata.New(store.Pool()).Dialogue(ctx, memory.Chat{ID: 1}, 5)
	if err != nil || len(msgs) != 1 || !msgs[0].WrittenAt.Equal(written) {
		t.Fatalf("the dialogue: %+v, %v", msgs, err)
	}
	// conversation_log (admin history, the operator's SQL) too.
	log, err := userdata.New(store.Pool()).History(ctx, 1, 5)
	if err != nil || len(log) != 1 || !log[0].At.Equal(written) {
		t.Fatalf("the log: %+v, %v", log, err)
	}
	var local time.Time
	if err := store.Pool().QueryRow(ctx, `SELECT local_time AT TIME ZONE membot_timezone() FROM conversation_log WHERE message_id = $1`,
		turn.UserMessageID).Scan(&local); err != nil || !local.Equal(written) {
		t.Fatalf("conversation_log's local_time is %v, %v; want %v", local, err, written)
	}
	// The memorizer dates the exchange by its user row too.
	if _, err := store.SaveStep(ctx, turn.ConversationID, memory.Step{Messages: []memory.Message{{Role: memory.RoleAssistant, Content: "Noted."}}}); err != nil {
		t.Fatal(err)
	}
	exchanges, err := store.Jobs().AnsweredTurns(ctx, 0, 10, 0)
	if err != nil || len(exchanges) != 1 || !exchanges[0].At.Equal(written) {
		t.Fatalf("the memorizer's exchanges: %+v, %v; want one at %v", exchanges, err, written)
	}
	// A row stored without one was written when it was stored.
	say(t, store, turn.ConversationID, "a heron again")
	found, err = store.Index().SearchMessages(ctx, memory.Search{ConversationID: turn.ConversationID, Text: "heron again", Limit: 1})
	if err != nil || len(found) == 0 || found[len(found)-1].WrittenAt.Before(time.Now().Add(-time.Hour)) {
		t.Fatalf("search found %+v, %v; want the new row at its storing", found, err)
	}
}
