package bot

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/membot/membot/memory"
)

// Queue is the inbox as the dispatcher works it.
type Queue interface {
	ClaimNext(ctx context.Context, chatID int64, owner int32) (*memory.InboxUpdate, error)
	Complete(ctx context.Context, updateID int64, d *memory.Delivery, errText string) error
	UnfinishedChats(ctx context.Context) ([]int64, error)
}

// UpdateHandler handles one update and says what was delivered.
type UpdateHandler interface {
	Handle(ctx context.Context, u *memory.InboxUpdate) (*memory.Delivery, error)
}

// RetryLater marks a handler error as passing (the database or Telegram is
// unreachable): the update stays claimed and is handled again after a pause.
// Any other error gives the update up.
type RetryLater struct{ Err error }

func (e *RetryLater) Error() string { return e.Err.Error() }
func (e *RetryLater) Unwrap() error { return e.Err }

// Dispatcher handles the inbox: one chat's updates strictly in order, one at
// a time, and up to Workers chats at once, so a slow chat never holds up the
// others. The order holds across processes too, because each update is
// claimed in the database (see memory.Store.ClaimNext).
type Dispatcher struct {
	Queue   Queue
	Handler UpdateHandler
	Owner   int32
	Workers int
	// Sweep is how often the inbox is scanned for work this process was not
	// told about: updates left by a crash, or stored by another process.
	Sweep time.Duration
	Log   *slog.Logger

	mu     sync.Mutex
	intake context.Context // claims stop when it ends
	work   context.Context // handlers run with it
	active map[int64]bool  // a goroutine is working this chat
	again  map[int64]bool  // new work arrived for an active chat
	slots  chan struct{}
	wg     sync.WaitGroup
}

// Run works the inbox until intake ends, then waits for the turns in flight.
// Handlers run with work, which the caller cancels when in-flight turns
// must be abandoned; intake ending only stops new claims.
func (d *Dispatcher) Run(intake, work context.Context) {
	d.mu.Lock()
	d.intake, d.work = intake, work
	d.active, d.again = map[int64]bool{}, map[int64]bool{}
	d.slots = make(chan struct{}, max(d.Workers, 1))
	d.mu.Unlock()

	tick := time.NewTicker(d.Sweep)
	defer tick.Stop()
	for {
		d.sweep()
		select {
		case <-intake.Done():
			d.wg.Wait()
			return
		case <-tick.C:
		}
	}
}

// sweep starts a worker for every chat with unfinished updates.
func (d *Dispatcher) sweep() {
	chats, err := d.Queue.UnfinishedChats(d.intake)
	if err != nil {
		if d.intake.Err() == nil {
			d.Log.Warn("scanning the inbox failed", "err", err)
		}
		return
	}
	d.Notify(chats)
}

// Notify tells the dispatcher that these chats have new updates. Intake
// (the poller or the webhook) calls it right after storing them.
func (d *Dispatcher) Notify(chats []int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.active == nil || d.intake.Err() != nil {
		return
	}
	for _, chat := range chats {
		if d.active[chat] {
			d.again[chat] = true
			continue
		}
		d.active[chat] = true
		d.wg.Add(1)
		go d.serve(chat)
	}
}

// serve handles the chat's updates one by one until it has none left.
func (d *Dispatcher) serve(chat int64) {
	defer d.wg.Done()
	for {
		select {
		case d.slots <- struct{}{}:
		case <-d.intake.Done():
			return // shutting down; nothing was claimed
		}
		d.drain(chat)
		<-d.slots
		if !d.moreWork(chat) {
			return
		}
	}
}

// drain claims and handles the chat's updates until none is left or intake ends.
func (d *Dispatcher) drain(chat int64) {
	for d.intake.Err() == nil {
		u, err := d.Queue.ClaimNext(d.intake, chat, d.Owner)
		if err != nil {
			if d.intake.Err() == nil {
				d.Log.Warn("claiming an update failed", "chat_id", chat, "err", err)
			}
			return // the sweep comes back to this chat
		}
		if u == nil {
			return
		}
		d.handle(d.work, u)
	}
}

// moreWork reports (and clears) whether Notify named the chat while it was
// being drained. When it says no, it marks the chat inactive in the same
// critical section, so that no Notify can slip in between and be lost.
func (d *Dispatcher) moreWork(chat int64) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.again[chat] {
		delete(d.again, chat)
		return true
	}
	delete(d.active, chat)
	return false
}

// handle runs the handler on one claimed update until it is done: passing
// failures are retried with backoff for as long as work lasts.
func (d *Dispatcher) handle(work context.Context, u *memory.InboxUpdate) {
	b := newBackoff(500*time.Millisecond, 30*time.Second)
	for {
		delivery, err := d.Handler.Handle(work, u)
		var later *RetryLater
		if errors.As(err, &later) {
			d.Log.Warn("handling an update failed; retrying", "update_id", u.UpdateID, "chat_id", u.ChatID, "err", err, "retry_in", b.peek())
			if !b.sleep(work) {
				return // shutting down: the update stays claimed and is taken over on restart
			}
			continue
		}
		errText := ""
		if err != nil {
			d.Log.Error("update given up", "update_id", u.UpdateID, "chat_id", u.ChatID, "err", err)
			errText = err.Error()
		}
		d.complete(work, u.UpdateID, delivery, errText, b)
		return
	}
}

// complete marks the update done, retrying while the database is away.
func (d *Dispatcher) complete(work context.Context, updateID int64, delivery *memory.Delivery, errText string, b *backoff) {
	for {
		err := d.Queue.Complete(work, updateID, delivery, errText)
		if err == nil {
			return
		}
		d.Log.Warn("marking an update done failed; retrying", "update_id", updateID, "err", err, "retry_in", b.peek())
		if !b.sleep(work) {
			return
		}
	}
}
