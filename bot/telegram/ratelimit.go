package telegram

import (
	"context"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Telegram's limits for sending (core.telegram.org/bots/faq): about 30
// messages a second in all, about one a second to one chat (short bursts
// pass), and 20 a minute to one group. Waiting here keeps the bot under them,
// so it rarely meets a 429 and its minute-long retry_after.
const (
	globalRate   = 30
	globalBurst  = 30
	privateEvery = time.Second
	groupEvery   = 3 * time.Second // 20 a minute
	chatBurst    = 3               // a reply split in three goes out at once
)

// sendLimiter spaces the messages the bot sends. A nil *sendLimiter never waits.
type sendLimiter struct {
	global *rate.Limiter

	mu      sync.Mutex
	chats   map[int64]*rate.Limiter
	pruneAt int // the map's size that triggers dropping idle limiters
}

func newSendLimiter() *sendLimiter {
	return &sendLimiter{global: rate.NewLimiter(globalRate, globalBurst), chats: map[int64]*rate.Limiter{}, pruneAt: 1024}
}

// wait blocks until one more message may go to chatID, or ctx ends.
func (l *sendLimiter) wait(ctx context.Context, chatID int64) error {
	if l == nil {
		return nil
	}
	// The chat's turn first, then the global one, so a chat that waits for
	// its own limit holds no global slot meanwhile.
	if err := l.chat(chatID).Wait(ctx); err != nil {
		return err
	}
	return l.global.Wait(ctx)
}

// chat returns the limiter of one chat. Groups have negative ids.
func (l *sendLimiter) chat(chatID int64) *rate.Limiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	lim, ok := l.chats[chatID]
	if !ok {
		every := privateEvery
		if chatID < 0 {
			every = groupEvery
		}
		lim = rate.NewLimiter(rate.Every(every), chatBurst)
		l.chats[chatID] = lim
		l.prune()
	}
	return lim
}

// prune forgets the limiters that are full again: a fresh one would behave
// the same. It runs when the map has doubled, so its cost is spread thin.
func (l *sendLimiter) prune() {
	if len(l.chats) < l.pruneAt {
		return
	}
	now := time.Now()
	for id, lim := range l.chats {
		if lim.TokensAt(now) >= chatBurst {
			delete(l.chats, id)
		}
	}
	l.pruneAt = max(1024, 2*len(l.chats))
}
