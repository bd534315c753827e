package memory_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/membot/membot/memory/queue"
)

// An update counts the runs that died with it in hand, raised by the claim
// that takes it over, before any work: a run that dies counts once, a live
// run's claims, a claim of its own taken back and a run that stops cleanly
// and hands its updates back count nothing.
func TestAClaimCountsTheRunsThatDiedWithTheUpdateInHand(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := store.Inbox().SaveUpdates(ctx, []queue.Update{
		{UpdateID: 21, ChatID: 7, Payload: []byte(`{"update_id":21}`)},
		{UpdateID: 22, ChatID: 7, Payload: []byte(`{"update_id":22}`)},
	}); err != nil {
		t.Fatal(err)
	}
	// run starts a process's owner lock; its stop is the process dying.
	run := func() (*queue.OwnerLock, func()) {
		lockCtx, stop := context.WithCancel(ctx)
		l := store.Inbox().HoldOwnerLock(lockCtx, log)
		return l, func() { stop(); l.Wait() }
	}
	claim := func(owner int32, wantAttempts, wantCrashes int) {
		t.Helper()
		u, err := store.Inbox().ClaimNext(ctx, 7, owner)
		if err != nil || u == nil || u.UpdateID != 21 || u.Attempts != wantAttempts || u.Crashes != wantCrashes {
			t.Fatalf("claim = %+v, %v; want update 21, attempt %d, crashes %d", u, err, wantAttempts, wantCrashes)
		}
	}

	a, dieA := run()
	claim(a.ID, 1, 0)
	claim(a.ID, 2, 0) // taken back by its own owner (a claim whose answer was lost): no crash
	dieA()
	b, dieB := run()
	claim(b.ID, 3, 1) // a died with it in hand
	dieB()
	c, stopC := run()
	// The intake's claim (claimFree) counts a takeover the same way.
	got, err := store.Inbox().SaveAndClaim(ctx, []queue.Update{{UpdateID: 23, ChatID: 8, Payload: []byte(`{"update_id":23}`)}}, c.ID, []int64{7})
	if err != nil || len(got) != 1 || got[0].UpdateID != 21 || got[0].Crashes != 2 {
		t.Fatalf("intake claim = %+v, %v; want update 21 with 2 crashes", got, err)
	}
	// c stops cleanly: it hands its update back, and the next run's claim
	// counts no crash for it.
	if err := store.Inbox().HandBack(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	stopC()
	d, stopD := run()
	defer stopD()
	claim(d.ID, 5, 2)
	// Later updates start from nothing.
	if err := store.Inbox().Complete(ctx, 21, nil, ""); err != nil {
		t.Fatal(err)
	}
	if u, err := store.Inbox().ClaimNext(ctx, 7, d.ID); err != nil || u == nil || u.UpdateID != 22 || u.Crashes != 0 {
		t.Fatalf("next claim = %+v, %v; want update 22 with no crashes", u, err)
	}
}
