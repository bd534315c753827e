package inbox

import (
	"context"

	"github.com/membot/membot/memory/queue"
)

// SaveUpdates stores updates in the inbox and sets their chats to work, as
// the store's SaveUpdates followed by Notify would, but in one round trip:
// the chats are claimed with the save (see chatState), and their workers go
// on with the claimed update in hand. Intake
// (the poller) uses the dispatcher as its Inbox and needs no Notify.
func (d *Dispatcher) SaveUpdates(ctx context.Context, updates []queue.Update) error {
	newest := map[int64]int64{} // the highest update id of each chat in the batch
	for _, u := range updates {
		newest[u.ChatID] = max(newest[u.ChatID], u.UpdateID)
	}
	claim := d.startClaims(newest)
	claimed, err := d.Queue.SaveAndClaim(ctx, updates, d.Owner, claim)
	if err != nil {
		claimed = nil // perhaps saved, perhaps claimed: the workers claim again, as owners may
	}
	for _, u := range updates {
		if u.StoredAs != 0 && u.StoredAs != u.UpdateID {
			// Never silent: a bot token or Bot API server changed under the database.
			d.Log.Warn("an update's id was taken by an earlier update (another bot, or the Bot API's ids started again); stored under a new id",
				"telegram_update_id", u.UpdateID, "stored_as", u.StoredAs, "chat_id", u.ChatID)
			orNone(d.Metrics).UpdateRenumbered()
			newest[u.ChatID] = max(newest[u.ChatID], u.StoredAs)
		}
	}
	d.endClaims(newest, claim, claimed)
	return err
}

// startClaims picks the chats to claim with the save: all but those whose
// worker is in a claim of its own, or that another intake call claims
// already. A chat without a worker is held for intake meanwhile.
func (d *Dispatcher) startClaims(newest map[int64]int64) []int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.running() {
		return nil // the first sweep finds the updates
	}
	var claim []int64
	for chat := range newest {
		st := d.chats[chat]
		if st == nil {
			st = &chatState{}
			d.chats[chat] = st
		}
		if st.claiming == 0 && !st.ownClaim {
			st.claiming++
			claim = append(claim, chat)
		}
	}
	return claim
}

// endClaims hands each claimed update to its chat's worker, starting one
// when the chat has none, and notifies the other chats.
func (d *Dispatcher) endClaims(newest map[int64]int64, claim []int64, claimed []*queue.Update) {
	d.mu.Lock()
	defer d.mu.Unlock()
	got := make(map[int64]*queue.Update, len(claimed))
	for _, u := range claimed {
		got[u.ChatID] = u
	}
	for _, chat := range claim {
		st := d.chats[chat]
		st.claiming--
		switch u := got[chat]; {
		case u != nil && st.worker:
			st.handoff = u
		case u != nil && d.running():
			d.startWorker(chat, u)
		case u != nil: // shutting down: the claim is taken over at the next start
		default:
			// Nothing claimed: another process holds the chat, or the
			// worker's own claim took the update, or the save failed.
			st.again = max(st.again, newest[chat])
			if !st.worker && st.claiming == 0 && d.running() {
				d.startWorker(chat, nil)
			}
		}
		d.forget(chat)
	}
	if !d.running() {
		return
	}
	for chat, upTo := range newest {
		if !claimedHere(claim, chat) {
			d.wake(chat, upTo)
		}
	}
}

func claimedHere(claim []int64, chat int64) bool {
	for _, c := range claim {
		if c == chat {
			return true
		}
	}
	return false
}
