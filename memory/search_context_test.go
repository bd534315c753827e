package memory_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/membot/membot/memory"
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
	found, err := store.SearchMessages(ctx, memory.Search{ConversationID: conv, Text: "spare key", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := snippetIDs(found), []int64{ids[0], ids[1]}; !slices.Equal(got, want) {
		t.Fatalf("spare key shown as %v; want the hit and its answer %v, oldest first", got, want)
	}
	if found[0].Hit != 1 || found[1].Hit != 0 || !strings.Contains(found[0].Text, "«key»") || strings.Contains(found[1].Text, "«") {
		t.Fatalf("the hit and its neighbour: %+v", found)
	}
	found, err = store.SearchMessages(ctx, memory.Search{ConversationID: conv, Text: "garage remote", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := snippetIDs(found), []int64{ids[1], ids[2], ids[3], ids[4]}; !slices.Equal(got, want) {
		t.Fatalf("garage remote shown as %v; want %v: the row before, the hit, the short reply and the row beyond it", got, want)
	}
	// The characters are bounded: the hit alone fits in 70.
	found, err = store.SearchMessages(ctx, memory.Search{ConversationID: conv, Text: "garage remote", Limit: 1, Chars: 100})
	if err != nil {
		t.Fatal(err)
	}
	if got := snippetIDs(found); !slices.Equal(got, []int64{ids[2]}) {
		t.Fatalf("garage remote within 100 characters shown as %v; want the hit alone", got)
	}
	// Rows from BeforeID on are not shown as neighbours either.
	found, err = store.SearchMessages(ctx, memory.Search{ConversationID: conv, Text: "spare key", Limit: 1, BeforeID: ids[1]})
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
