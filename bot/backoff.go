package bot

import (
	"context"
	"math/rand/v2"
	"time"
)

// backoff is an exponential delay with jitter, for retrying a failing
// dependency without hammering it.
type backoff struct {
	first, limit, next time.Duration
}

func newBackoff(first, limit time.Duration) *backoff {
	return &backoff{first: first, limit: limit, next: first}
}

func (b *backoff) peek() time.Duration { return b.next }
func (b *backoff) reset()              { b.next = b.first }

// sleep waits the current delay (±50%) and doubles it; false if ctx ended.
func (b *backoff) sleep(ctx context.Context) bool {
	d := b.next/2 + rand.N(b.next)
	b.next = min(b.next*2, b.limit)
	return sleep(ctx, d)
}

// sleep waits d; false if ctx ended first.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
