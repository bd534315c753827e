// Package purge deletes, in the background and a batch at a time, the
// conversations /new left behind and the operational rows older than the
// retention. It works through Queue, which Store implements over memory's
// pool with the statements of sql/purge.sql, and knows nothing of
// Telegram: the wiring (cmd/membot/app) hands /new's wake-up to bot.
package purge

import (
	"cmp"
	"context"
	"log/slog"
	"time"

	"github.com/membot/membot/internal/wake"
)

// Queue is what /new leaves behind, and what is older than the
// retention, as the purger works it (Store, over memory's pool).
type Queue interface {
	// PurgeReset deletes one batch and says how many rows went (0: none left).
	PurgeReset(ctx context.Context) (int64, error)
	// PurgeExpired deletes one batch of the updates, events and llm_calls
	// older than before, and says how many rows went (0: none left).
	PurgeExpired(ctx context.Context, before time.Time) (int64, error)
}

// Purger deletes the conversations /new left behind, a batch at a time, so
// that /new itself answers at once however long the conversation was (see
// memory.Store.Reset). It works right after each /new (Wake), at start, and
// every Poll, for what a stopped or another process left. With a Retention
// it also deletes the operational rows older than that (RETENTION_DAYS).
// Several processes' purgers share the work safely.
type Purger struct {
	Queue     Queue
	Log       *slog.Logger
	Poll      time.Duration // 1 min when zero
	Retention time.Duration // 0: operational rows are kept

	wake wake.Signal
}

// Wake tells the purger /new has left something to delete.
func (p *Purger) Wake() { p.wake.Wake() }

// Run purges until ctx ends; what is left then is purged at the next start.
func (p *Purger) Run(ctx context.Context) {
	tick := time.NewTicker(cmp.Or(p.Poll, time.Minute))
	defer tick.Stop()
	for {
		p.purge(ctx)
		select {
		case <-ctx.Done():
			return
		case <-p.wake.C():
		case <-tick.C:
		}
	}
}

// purge deletes what /new left, then what is past the retention.
func (p *Purger) purge(ctx context.Context) {
	p.drain(ctx, "what /new left", p.Queue.PurgeReset)
	if p.Retention > 0 {
		before := time.Now().Add(-p.Retention)
		p.drain(ctx, "updates, events and llm_calls past RETENTION_DAYS", func(ctx context.Context) (int64, error) {
			return p.Queue.PurgeExpired(ctx, before)
		})
	}
}

// drain deletes batches until none is left or one fails (the next wake-up
// or tick tries again).
func (p *Purger) drain(ctx context.Context, what string, batch func(context.Context) (int64, error)) {
	var rows int64
	for ctx.Err() == nil {
		n, err := batch(ctx)
		if err != nil {
			if ctx.Err() == nil {
				p.Log.Warn("purging "+what+" failed; trying again later", "err", err)
			}
			break
		}
		if n == 0 {
			break
		}
		rows += n
	}
	if rows > 0 {
		p.Log.Info("purged "+what, "rows", rows)
	}
}
