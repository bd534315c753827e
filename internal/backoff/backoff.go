// Package backoff is membot's one way to wait before trying a failing
// dependency again: an exponential delay with jitter that a cancelled
// context cuts short.
package backoff

import (
	"context"
	"math/rand/v2"
	"time"
)

// Backoff is an exponential delay with jitter, for retrying a failing
// dependency without hammering it. It is not safe for concurrent use.
type Backoff struct {
	first, limit, next time.Duration
}

// New returns a delay that starts at first and doubles up to limit.
func New(first, limit time.Duration) *Backoff {
	return &Backoff{first: first, limit: limit, next: first}
}

// Peek is the delay the next Sleep waits around.
func (b *Backoff) Peek() time.Duration { return b.next }

// Reset starts the delays over, after a success.
func (b *Backoff) Reset() { b.next = b.first }

// Next returns the current delay (±50%) and doubles it, for a caller that
// waits on its own terms (not before a time, say) rather than in Sleep.
func (b *Backoff) Next() time.Duration {
	d := b.next/2 + rand.N(b.next)
	b.next = min(b.next*2, b.limit)
	return d
}

// Sleep waits the current delay (±50%) and doubles it; false if ctx ended.
func (b *Backoff) Sleep(ctx context.Context) bool {
	return Sleep(ctx, b.Next())
}

// Sleep waits d; false if ctx ended first.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
