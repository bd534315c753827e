package inbox

import (
	"github.com/membot/membot/internal/testing/wait"
	"github.com/membot/membot/memory/queue"

	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/internal/testing/telegramfake"
)

// pickyInbox refuses, as a database would refuse a bad row, any batch that
// holds the update it dislikes.
type pickyInbox struct {
	mu      sync.Mutex
	refuse  int64
	stored  []int64
	batches int
}

func (in *pickyInbox) SaveUpdates(_ context.Context, updates []queue.Update) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.batches++
	for _, u := range updates {
		if u.UpdateID == in.refuse {
			return errors.New("ERROR: invalid input syntax (SQLSTATE 22P02)")
		}
	}
	for _, u := range updates {
		in.stored = append(in.stored, u.UpdateID)
	}
	return nil
}

func (in *pickyInbox) storedIDs() []int64 {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]int64(nil), in.stored...)
}

// pollUntilConfirmed runs a poller into inbox until tg has no unconfirmed
// update left, or 10 s have passed.
func pollUntilConfirmed(tg *telegramfake.Server, inbox Inbox) {
	ctx, cancel := context.WithCancel(context.Background())
	p := &Poller{Client: telegram.NewClient(ctx, ctx, telegram.Config{Token: "1:t", APIURL: tg.URL(), PollTimeout: time.Second}),
		Inbox: inbox, Timeout: time.Second, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	done := make(chan struct{})
	go func() { defer close(done); p.Run(ctx) }()
	for deadline := time.Now().Add(wait.Timeout()); time.Now().Before(deadline) && tg.Pending() > 0; time.Sleep(10 * time.Millisecond) {
	}
	cancel()
	<-done
}

func TestOneRefusedUpdateDoesNotStopIntake(t *testing.T) {
	tg := telegramfake.New("1:t")
	defer tg.Close()
	from := telegramfake.User{ID: 9, FirstName: "A"}
	first := tg.SendText(from, "one")
	bad := tg.SendText(from, "two")
	last := tg.SendText(from, "three")

	inbox := &pickyInbox{refuse: bad}
	pollUntilConfirmed(tg, inbox)
	got := inbox.storedIDs()
	if len(got) != 2 || got[0] != first || got[1] != last {
		t.Fatalf("stored %v, want [%d %d] (the refused %d skipped)", got, first, last, bad)
	}
	if tg.Pending() != 0 {
		t.Fatalf("%d updates still unconfirmed: intake is stuck", tg.Pending())
	}
}

// An update whose envelope has an unexpected shape is stored under chat 0
// and confirmed, even as the last of its batch: skipped, Telegram would
// send it again forever.
func TestAnUpdateOfUnexpectedShapeIsStoredAndConfirmed(t *testing.T) {
	tg := telegramfake.New("1:t")
	defer tg.Close()
	good := tg.SendText(telegramfake.User{ID: 9, FirstName: "A"}, "one")
	tg.AddRawUpdate(fmt.Sprintf(`{"update_id": %d, "message": "not an object"}`, good+1))

	inbox := &pickyInbox{}
	pollUntilConfirmed(tg, inbox)
	if got := inbox.storedIDs(); len(got) != 2 || got[0] != good || got[1] != good+1 {
		t.Fatalf("stored %v, want [%d %d]", got, good, good+1)
	}
	if tg.Pending() != 0 {
		t.Fatalf("%d updates still unconfirmed", tg.Pending())
	}
}
