// Package inbox is membot's intake and dispatch: updates from long polling
// or the webhook are stored in the durable inbox before Telegram is told
// they arrived, and a dispatcher claims each chat's next update in the
// database and hands it to the handler, one chat strictly in order and
// many chats at once. It sees Telegram only as raw JSON updates.
package inbox

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/membot/membot/internal/backoff"
	"github.com/membot/membot/memory/queue"
)

// Queue is the inbox as the dispatcher works it.
type Queue interface {
	ClaimNext(ctx context.Context, chatID int64, owner int32) (*queue.Update, error)
	Complete(ctx context.Context, updateID int64, d *queue.Delivery, errText string) error
	UnfinishedChats(ctx context.Context) ([]int64, error)
	HandBack(ctx context.Context, owner int32) error
	// NotePanic counts a panic against the update alone (Update.Crashes)
	// and reads what its answer was shown in so far (Update.Shown).
	NotePanic(ctx context.Context, updateID int64, owner int32) (crashes int, shown []int64, err error)
	// The two calls below each do two of the above in one round trip.
	SaveAndClaim(ctx context.Context, updates []queue.Update, owner int32, claim []int64) ([]*queue.Update, error)
	CompleteAndClaimNext(ctx context.Context, updateID int64, d *queue.Delivery, errText string, chatID int64, owner int32) (*queue.Update, error)
}

// UpdateHandler handles one update and says what was delivered.
type UpdateHandler interface {
	Handle(ctx context.Context, u *queue.Update) (*queue.Delivery, error)
	// GiveUp tells the update's chat that it will not be answered (the
	// bot's apology): runs died with it in hand (Dispatcher.GiveUpAfter).
	GiveUp(ctx context.Context, u *queue.Update) error
}

// DefaultGiveUpAfter is how many runs may die with an update in hand
// before it is given up (Dispatcher.GiveUpAfter, by default).
const DefaultGiveUpAfter = 3

// Dispatcher handles the inbox: one chat's updates strictly in order, one at
// a time, and up to Workers chats at once, so a slow chat never holds up the
// others. The order holds across processes too, because each update is
// claimed in the database (see queue.Store.ClaimNext).
type Dispatcher struct {
	Queue   Queue
	Handler UpdateHandler
	Owner   int32
	Workers int
	// Sweep is how often the inbox is scanned for work this process was not
	// told about: updates left by a crash, or stored by another process;
	// DefaultSweep when zero.
	Sweep time.Duration
	Log   *slog.Logger
	// Transient tells a failure that may pass (the database or Telegram is
	// unreachable): the update stays claimed and is handled again after a
	// pause. Any other error gives the update up. Nil: none may pass.
	Transient func(error) bool
	// Stuck tracks the chats blocked by an update that takes too long; nil
	// tracks none.
	Stuck   *Stuck
	Metrics Metrics
	// GiveUpAfter is how many runs may die with an update in hand, or its
	// handling panic (recovered: see run), before it is given up
	// (DefaultGiveUpAfter when 0): an update whose handling kills the
	// process (a fatal error, the OOM killer) would otherwise be taken over
	// by every next run and kill it too, and its chat would never go on. A
	// failure that may pass (Transient) is retried within the run and
	// counts nothing.
	GiveUpAfter int

	mu     sync.Mutex
	intake context.Context // claims stop when it ends
	work   context.Context // handlers run with it
	chats  map[int64]*chatState
	slots  chan struct{}
	wg     sync.WaitGroup
}

// Run works the inbox until intake ends, then waits for the turns in flight.
// Handlers run with work, which the caller cancels when in-flight turns
// must be abandoned; intake ending only stops new claims.
func (d *Dispatcher) Run(intake, work context.Context) {
	d.mu.Lock()
	d.intake, d.work = intake, work
	d.chats = map[int64]*chatState{}
	d.slots = make(chan struct{}, max(d.Workers, 1))
	d.mu.Unlock()

	tick := time.NewTicker(cmp.Or(d.Sweep, DefaultSweep))
	defer tick.Stop()
	for {
		d.sweep()
		select {
		case <-intake.Done():
			// Workers start under d.mu only while intake lasts: once the
			// lock has been taken here, no more can start.
			d.mu.Lock()
			d.mu.Unlock() //nolint:staticcheck // an empty critical section is the point
			d.wg.Wait()
			d.handBack()
			return
		case <-tick.C:
		}
	}
}

func (d *Dispatcher) giveUpAfter() int {
	if d.GiveUpAfter > 0 {
		return d.GiveUpAfter
	}
	return DefaultGiveUpAfter
}

// handBack returns the updates the run still holds (turns abandoned at
// the shutdown deadline) to the inbox: stopping cleanly is no crash.
func (d *Dispatcher) handBack() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := d.Queue.HandBack(ctx, d.Owner); err != nil {
		d.Log.Warn("handing back the updates in hand failed; the next run counts them as in hand at a crash", "err", err)
	}
}

// sweep starts a worker for every chat with unfinished updates, and logs
// the chats that became blocked.
func (d *Dispatcher) sweep() {
	for chat, took := range d.Stuck.newlyBlocked() {
		d.Log.Error("a chat is blocked: its update has been in hand too long, and its later messages wait",
			"chat_id", chat, "for", took, "last_err", d.Stuck.lastErr(chat))
	}
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
	if !d.running() {
		return
	}
	for _, chat := range chats {
		d.wake(chat, anyUpdate)
	}
}

// serve handles the chat's updates one by one, starting with first when it
// was claimed already, until it has none left.
func (d *Dispatcher) serve(chat int64, first *queue.Update) {
	defer d.wg.Done()
	for {
		select {
		case d.slots <- struct{}{}:
		case <-d.intake.Done():
			d.stopWorker(chat)
			return // shutting down; a claimed first is taken over at the next start
		}
		handled := d.drain(chat, first)
		<-d.slots
		var more bool
		if first, more = d.nextWork(chat, handled); !more {
			return
		}
	}
}

// drain handles u (claiming the chat's next update when u is nil) and the
// chat's updates after it, each claimed as the one before is completed,
// until none is left or intake ends. It returns the id of the last update
// it handled.
func (d *Dispatcher) drain(chat int64, u *queue.Update) (handled int64) {
	if u == nil {
		var err error
		u, err = d.Queue.ClaimNext(d.intake, chat, d.Owner)
		d.ownClaimDone(chat)
		if err != nil {
			if d.intake.Err() == nil {
				d.Log.Warn("claiming an update failed", "chat_id", chat, "err", err)
			}
			return 0 // the sweep comes back to this chat
		}
	}
	for u != nil && d.intake.Err() == nil {
		handled = u.UpdateID
		u = d.handle(d.work, u)
	}
	return handled
}

// handle runs the handler on one claimed update until it is done: passing
// failures are retried with backoff for as long as work lasts, and so is a
// panic, counted against the update (quarantine). It returns the chat's
// next update, claimed with the completion, or nil.
func (d *Dispatcher) handle(work context.Context, u *queue.Update) *queue.Update {
	if u.Attempts > 1 { // claimed before by a run that did not finish it
		d.Log.Info("taking over an update a stopped or crashed run left unfinished", "update_id", u.UpdateID, "chat_id", u.ChatID,
			"attempt", u.Attempts, "crashes", u.Crashes)
	}
	b := backoff.New(500*time.Millisecond, 30*time.Second)
	d.Stuck.begin(u.ChatID)
	defer func() {
		if blocked, took := d.Stuck.end(u.ChatID); blocked {
			d.Log.Info("a blocked chat goes on", "update_id", u.UpdateID, "chat_id", u.ChatID, "after", took.Round(time.Second))
		}
	}()
	told, lastPanic := false, ""
	for {
		quarantined := d.quarantined(u, &told)
		delivery, err := d.run(work, u)
		var p *panicked
		if errors.As(err, &p) && work.Err() == nil {
			d.notePanic(work, u, p)
			lastPanic = p.value
			if u.Crashes <= d.giveUpAfter() { // handled again, or given up with the apology
				if !b.Sleep(work) {
					return nil
				}
				continue
			}
			quarantined, err = true, nil // the apology panicked too: the chat is not told
		}
		if err != nil && (work.Err() != nil || (d.Transient != nil && d.Transient(err))) {
			d.Log.Warn("handling an update failed; retrying", "update_id", u.UpdateID, "chat_id", u.ChatID, "err", err, "retry_in", b.Peek())
			d.Stuck.failed(u.ChatID, err)
			if !b.Sleep(work) {
				return nil // shutting down: the update stays claimed and is taken over on restart
			}
			continue
		}
		errText := ""
		switch {
		case quarantined:
			errText = fmt.Sprintf("given up: it was in hand when the process died or the handler panicked, %d times", u.Crashes)
			if lastPanic != "" {
				errText += "; last panic: " + lastPanic
			}
			if err != nil {
				d.Log.Warn("telling the chat its update was given up failed", "update_id", u.UpdateID, "chat_id", u.ChatID, "err", err)
			}
		case err != nil:
			d.Log.Error("update given up", "update_id", u.UpdateID, "chat_id", u.ChatID, "err", err)
			errText = err.Error()
		}
		return d.complete(work, u, delivery, errText, b)
	}
}

// quarantined tells whether u is given up rather than handled: runs died
// with it in hand, or its handling panicked, GiveUpAfter times. It says
// so the first time, when *told is false.
func (d *Dispatcher) quarantined(u *queue.Update, told *bool) bool {
	if u.Crashes < d.giveUpAfter() {
		return false
	}
	if !*told {
		*told = true
		d.Log.Error("update given up: the process died or the handler panicked each time it was in hand", "update_id", u.UpdateID,
			"chat_id", u.ChatID, "crashes", u.Crashes)
		orNone(d.Metrics).UpdatePoisoned()
	}
	return true
}

// panicked is a panic recovered while an update was handled.
type panicked struct{ value string }

func (p *panicked) Error() string { return "panic: " + p.value }

// maxPanicText bounds what updates.error keeps of a panic's value.
const maxPanicText = 500

// cut is s cut to at most n bytes, whole characters.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// notePanic counts a panic against u alone (Update.Crashes), in the inbox
// so that it adds to the runs that died with u in hand; should the
// database be away, it is counted in this run only. The next attempt
// goes on from the messages the panicked one showed (Update.Shown), as a
// run taking the update over after a crash does: nothing is sent twice.
func (d *Dispatcher) notePanic(work context.Context, u *queue.Update, p *panicked) {
	crashes, shown, err := d.Queue.NotePanic(work, u.UpdateID, d.Owner)
	if err != nil {
		d.Log.Warn("counting a panic in the inbox failed; counted in this run only", "update_id", u.UpdateID, "err", err)
	} else {
		u.Shown = shown
	}
	u.Crashes = max(crashes, u.Crashes+1)
	d.Stuck.failed(u.ChatID, p)
}

// run handles u or, when runs died with it in hand (or its handling
// panicked) GiveUpAfter times, tells its chat it is given up. Once more
// (the apology itself may be what killed the last run), the chat is not
// told. A panic is recovered, logged with its stack and returned as a
// *panicked: it costs this update an attempt, never the process, and so
// never another chat's update in hand.
func (d *Dispatcher) run(work context.Context, u *queue.Update) (delivery *queue.Delivery, err error) {
	defer func() {
		if v := recover(); v != nil {
			d.Log.Error("panic while handling an update", "update_id", u.UpdateID, "chat_id", u.ChatID, "crashes", u.Crashes,
				"panic", v, "stack", string(debug.Stack()))
			delivery, err = nil, &panicked{value: cut(fmt.Sprint(v), maxPanicText)}
		}
	}()
	switch {
	case u.Crashes < d.giveUpAfter():
		return d.Handler.Handle(work, u)
	case u.Crashes == d.giveUpAfter():
		return nil, d.Handler.GiveUp(work, u)
	}
	return nil, nil
}

// complete marks the update done and, unless intake has ended, claims the
// chat's next update with it; it retries while the database is away. After
// a failure it only completes: the failed call may have claimed the next
// update all the same, so the chat's worker is told to claim again (its
// plain claim takes back what this process holds).
func (d *Dispatcher) complete(work context.Context, u *queue.Update, delivery *queue.Delivery, errText string, b *backoff.Backoff) *queue.Update {
	failed := false
	for {
		var next *queue.Update
		var err error
		if d.intake.Err() == nil && !failed {
			next, err = d.Queue.CompleteAndClaimNext(work, u.UpdateID, delivery, errText, u.ChatID, d.Owner)
		} else {
			err = d.Queue.Complete(work, u.UpdateID, delivery, errText)
		}
		if err == nil {
			return next
		}
		if !failed {
			failed = true
			d.mu.Lock()
			d.wake(u.ChatID, anyUpdate)
			d.mu.Unlock()
		}
		d.Log.Warn("marking an update done failed; retrying", "update_id", u.UpdateID, "err", err, "retry_in", b.Peek())
		if !b.Sleep(work) {
			return nil
		}
	}
}
