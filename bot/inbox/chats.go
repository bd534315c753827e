package inbox

import (
	"math"

	"github.com/membot/membot/memory/queue"
)

// chatState is what the dispatcher knows of a chat that is being worked
// on. Two kinds of claim meet here. The claims made with a save (intake)
// and with a completion (the worker) never take back what this process
// holds, so they may run at once, while the worker handles or completes an
// update: the database gives an update to exactly one of them. The
// worker's plain ClaimNext takes back what the process holds (an update
// claimed by a call that failed on the way back), so it must not overlap
// an intake claim, whose update could be on its way to the worker:
// ownClaim and claiming keep the two apart.
type chatState struct {
	worker   bool          // a goroutine serves the chat
	ownClaim bool          // the worker is (about to be) in a plain ClaimNext
	claiming int           // intake claims on the way (at most one)
	again    int64         // the highest update id notified since the worker last looked (anyUpdate: unknown), or 0
	handoff  *queue.Update // claimed by intake for the worker
}

// anyUpdate stands for "some update id" when a notice does not say which.
const anyUpdate = math.MaxInt64

// running reports whether workers may start. d.mu must be held.
func (d *Dispatcher) running() bool { return d.chats != nil && d.intake.Err() == nil }

// wake starts a worker for the chat, or tells the chat's worker to look
// again unless it has handled update upTo by then. d.mu must be held.
func (d *Dispatcher) wake(chat, upTo int64) {
	if st := d.chats[chat]; st != nil {
		st.again = max(st.again, upTo)
		return
	}
	d.chats[chat] = &chatState{}
	d.startWorker(chat, nil)
}

// startWorker starts the chat's worker, which claims an update itself when
// first is nil; d.mu must be held and the chat's state present.
func (d *Dispatcher) startWorker(chat int64, first *queue.Update) {
	st := d.chats[chat]
	st.worker, st.ownClaim = true, first == nil
	d.wg.Add(1)
	go d.serve(chat, first)
}

// nextWork is what the worker does after its drain: the update intake
// claimed for it, or a claim of its own when the chat was notified of an
// update after handled, or nothing (more is false): then the chat is idle,
// or left to the intake claims on the way.
func (d *Dispatcher) nextWork(chat, handled int64) (first *queue.Update, more bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	st := d.chats[chat]
	if !d.running() {
		st.worker = false
		d.forget(chat)
		return nil, false
	}
	if u := st.handoff; u != nil {
		st.handoff = nil
		return u, true
	}
	if st.claiming > 0 {
		st.worker = false // intake starts a worker if its claim needs one
		return nil, false
	}
	if st.again > handled {
		st.again = 0
		st.ownClaim = true
		return nil, true
	}
	st.again = 0
	st.worker = false
	d.forget(chat)
	return nil, false
}

// stopWorker records that the chat's worker has stopped at shutdown.
func (d *Dispatcher) stopWorker(chat int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.chats[chat].worker = false
	d.forget(chat)
}

// ownClaimDone records that the worker's plain ClaimNext has returned.
func (d *Dispatcher) ownClaimDone(chat int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.chats[chat].ownClaim = false
}

// forget drops the state of a chat nobody works on. d.mu must be held.
func (d *Dispatcher) forget(chat int64) {
	if st := d.chats[chat]; st != nil && !st.worker && st.claiming == 0 {
		delete(d.chats, chat)
	}
}
