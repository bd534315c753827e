package purge

import (
	"github.com/membot/membot/internal/testing/wait"

	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"
)

// batchQueue hands out the batches it holds, one per call, then 0.
type batchQueue struct {
	mu      sync.Mutex
	batches []int64
	fail    bool
	calls   int
}

func (q *batchQueue) PurgeReset(context.Context) (int64, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.calls++
	if q.fail {
		q.fail = false
		return 0, errors.New("database away")
	}
	if len(q.batches) == 0 {
		return 0, nil
	}
	n := q.batches[0]
	q.batches = q.batches[1:]
	return n, nil
}

// PurgeExpired has nothing to delete: the retention is tested against
// PostgreSQL (TestRetentionDeletesOnlyWhatIsOld).
func (q *batchQueue) PurgeExpired(context.Context, time.Time) (int64, error) { return 0, nil }

func (q *batchQueue) add(batches ...int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.batches = append(q.batches, batches...)
}

func (q *batchQueue) left() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.batches)
}

func TestThePurgerWorksAtStartOnWakeAndAfterAFailure(t *testing.T) {
	q := &batchQueue{batches: []int64{5000, 12}} // left by an earlier run
	p := &Purger{Queue: q, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Poll: time.Hour}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); p.Run(ctx) }()

	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(wait.Timeout()); !cond(); time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal(what)
			}
		}
	}
	waitFor("what an earlier run left was not purged at start", func() bool { return q.left() == 0 })

	q.mu.Lock()
	q.fail = true // the first call after the next wake-up fails
	q.mu.Unlock()
	q.add(7)
	p.Wake()
	p.Wake() // wake-ups do not pile up, and do not block
	waitFor("a failed purge was not tried again on the next wake-up", func() bool {
		p.Wake()
		return q.left() == 0
	})
	cancel()
	<-done
}
