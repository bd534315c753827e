package memory_test

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"testing"

	"github.com/membot/membot/memory/queue"
)

func TestTheMessagesAnAnswerShowedInComeBackWithTheUpdate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	if err := store.Inbox().SaveUpdates(ctx, []queue.Update{{UpdateID: 1, ChatID: 7, Payload: []byte(`{}`)}}); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	firstCtx, die := context.WithCancel(ctx)
	first := store.Inbox().HoldOwnerLock(firstCtx, log)
	u, err := store.Inbox().ClaimNext(ctx, 7, first.ID)
	if err != nil || u == nil || len(u.Shown) != 0 {
		t.Fatalf("first claim = %+v, %v; want nothing shown yet", u, err)
	}
	if err := store.Inbox().NoteShown(ctx, 1, []int64{100, 101}); err != nil {
		t.Fatal(err)
	}
	// The first owner dies; the next one finds what it showed.
	die()
	first.Wait()
	next := store.Inbox().HoldOwnerLock(ctx, log)
	u, err = store.Inbox().ClaimNext(ctx, 7, next.ID)
	if err != nil || u == nil || !slices.Equal(u.Shown, []int64{100, 101}) {
		t.Fatalf("takeover claim = %+v, %v; want the messages 100 and 101", u, err)
	}
}
