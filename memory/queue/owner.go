package queue

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/membot/membot/internal/backoff"
)

// ownerLockSpace is the first key of the owner advisory locks; the SQL
// function membot_owner_alive looks for the same number.
const ownerLockSpace = 1835363682

// OwnerLock proves to other processes that this one is alive: it holds the
// advisory lock (ownerLockSpace, ID) on a connection of its own. When the
// process dies, the connection closes, the lock goes, and the updates it was
// handling can be claimed again at once, with no lease to wait out.
type OwnerLock struct {
	ID   int32
	done chan struct{}
}

// HoldOwnerLock takes a fresh owner id, locks it, and keeps the lock (and
// retakes it after a lost connection) until ctx ends.
func (s *Store) HoldOwnerLock(ctx context.Context, log *slog.Logger) *OwnerLock {
	l := &OwnerLock{ID: rand.Int32N(1<<31-1) + 1, done: make(chan struct{})}
	locked := make(chan struct{})
	go func() {
		defer close(l.done)
		s.keepOwnerLock(ctx, l.ID, locked, log)
	}()
	select { // wait briefly for the first lock so claims start out protected
	case <-locked:
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
	}
	return l
}

// Wait returns when the lock has been released after ctx ended.
func (l *OwnerLock) Wait() { <-l.done }

func (s *Store) keepOwnerLock(ctx context.Context, id int32, locked chan struct{}, log *slog.Logger) {
	cfg := s.pool.Config().ConnConfig.Copy()
	wait := backoff.New(100*time.Millisecond, 5*time.Second)
	first := true
	for ctx.Err() == nil {
		err := holdOnce(ctx, cfg, id, func() {
			wait.Reset()
			if first {
				first = false
				close(locked)
			}
		})
		if ctx.Err() != nil {
			return
		}
		log.Warn("owner lock lost; retrying", "owner", id, "err", err, "in", wait.Peek())
		if !wait.Sleep(ctx) {
			return
		}
	}
}

// holdOnce connects, locks, and checks the connection every second until it
// fails or ctx ends.
func holdOnce(ctx context.Context, cfg *pgx.ConnConfig, id int32, onLocked func()) error {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return translate(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, advisoryLockSQL, ownerLockSpace, id); err != nil {
		return translate(err)
	}
	onLocked()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			// Let go at once: the server would drop the lock only a moment
			// after the connection closes, and until then this process's
			// updates and reminders could not be taken over.
			unlockCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			conn.Exec(unlockCtx, advisoryUnlockSQL, ownerLockSpace, id)
			return nil
		case <-tick.C:
			if _, err := conn.Exec(ctx, pingSQL); err != nil {
				return translate(err)
			}
		}
	}
}

// The statements of this file, whole in sql/owner.sql.
var (
	advisoryLockSQL   = statement("advisoryLock")
	advisoryUnlockSQL = statement("advisoryUnlock")
	pingSQL           = statement("ping")
)
