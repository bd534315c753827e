package memory_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/membot/membot/memory"
)

// Strangers asking at once open no more requests than the bound, and one
// asker never two: the requests are counted under a lock.
func TestConcurrentAsksOpenAtMostTheBound(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	const bound, askers = 3, 12
	outcomes := make([]memory.AskOutcome, 2*askers)
	var wg sync.WaitGroup
	for i := range 2 * askers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := int64(1000 + i%askers) // each asks twice
			_, outcome, err := store.Access().AskAccess(ctx, memory.AccessRequest{Kind: memory.KindUser, TelegramID: id, ChatID: id, UserID: id,
				FirstName: "Stranger"}, bound, time.Hour)
			if err != nil {
				t.Error(err)
			}
			outcomes[i] = outcome
		}()
	}
	wg.Wait()
	opened := 0
	for _, o := range outcomes {
		if o == memory.AskOpened {
			opened++
		}
	}
	if opened != bound {
		t.Fatalf("%d requests opened by %d askers at once, want %d", opened, askers, bound)
	}
	grants, err := store.Access().PendingRequests(ctx, 10)
	if err != nil || len(grants) != bound {
		t.Fatalf("pending = %d (%v), want %d", len(grants), err, bound)
	}
	seen := map[int64]bool{}
	for _, r := range grants {
		if seen[r.TelegramID] {
			t.Fatalf("asker %d has two requests", r.TelegramID)
		}
		seen[r.TelegramID] = true
	}
}

// Two users sending the right code at once: one owner.
func TestOneOwnerWhenTwoClaimAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	c, err := store.Access().AccessClaim(ctx, "ABCDEFGHJK", time.Hour)
	if err != nil || c.Claimed || c.Code != "ABCDEFGHJK" {
		t.Fatalf("claim = %+v, %v", c, err)
	}
	if again, _ := store.Access().AccessClaim(ctx, "ZZZZZZZZZZ", time.Hour); again.Code != c.Code {
		t.Fatalf("a live code was replaced: %q, then %q", c.Code, again.Code)
	}
	outcomes := make([]memory.ClaimOutcome, 8)
	var wg sync.WaitGroup
	for i := range outcomes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			outcomes[i], _, err = store.Access().ClaimOwner(ctx, int64(10+i), int64(i), func(code string) bool { return code == "ABCDEFGHJK" }, 5)
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	owners := 0
	for _, o := range outcomes {
		if o == memory.ClaimOwned {
			owners++
		} else if o != memory.ClaimTaken {
			t.Errorf("a losing claim came to %d, want ClaimTaken", o)
		}
	}
	if owners != 1 {
		t.Fatalf("%d owners, want 1", owners)
	}
	if c, _ := store.Access().AccessClaim(ctx, "NEWCODE234", time.Hour); !c.Claimed || c.Code != "" {
		t.Fatalf("after the claim: %+v", c)
	}
}
