package inbox

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// DefaultBlockedAfter is how long a chat's update may be in hand before
// the chat counts as blocked (CHAT_BLOCKED_AFTER).
const DefaultBlockedAfter = 10 * time.Minute

// Stuck knows, for each chat a worker is on, since when it has been on the
// chat's head update. A chat on one update for longer than After is
// blocked: its later messages wait. /readyz (Check), the metrics (Count)
// and the log show it, so that no chat waits for ever unseen. A nil *Stuck
// tracks nothing.
type Stuck struct {
	After time.Duration // DefaultBlockedAfter when zero

	mu    sync.Mutex
	since map[int64]time.Time
}

func (s *Stuck) bound() time.Duration {
	if s.After <= 0 {
		return DefaultBlockedAfter
	}
	return s.After
}

// begin notes that the chat's worker took up an update now.
func (s *Stuck) begin(chat int64) time.Time {
	now := time.Now()
	if s == nil {
		return now
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.since == nil {
		s.since = map[int64]time.Time{}
	}
	s.since[chat] = now
	return now
}

// end notes that the chat's worker is done with its update.
func (s *Stuck) end(chat int64) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.since, chat)
}

// over reports whether an update taken up at start has blocked its chat.
func (s *Stuck) over(start time.Time) bool {
	return s != nil && time.Since(start) >= s.bound()
}

// blocked lists the blocked chats, longest blocked first, with how long.
func (s *Stuck) blocked() (chats []int64, for_ []time.Duration) {
	if s == nil {
		return nil, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for chat, start := range s.since {
		if s.over(start) {
			chats = append(chats, chat)
		}
	}
	sort.Slice(chats, func(i, j int) bool { return s.since[chats[i]].Before(s.since[chats[j]]) })
	for _, chat := range chats {
		for_ = append(for_, time.Since(s.since[chat]).Round(time.Second))
	}
	return chats, for_
}

// Count is how many chats are blocked now.
func (s *Stuck) Count() int {
	chats, _ := s.blocked()
	return len(chats)
}

// Check is a readiness probe: an error naming the blocked chats, if any.
func (s *Stuck) Check(context.Context) error {
	chats, took := s.blocked()
	if len(chats) == 0 {
		return nil
	}
	var b strings.Builder
	for i, chat := range chats {
		if i == 5 {
			fmt.Fprintf(&b, ", and %d more", len(chats)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "chat %d for %s", chat, took[i])
	}
	return fmt.Errorf("%d chat(s) blocked, their head update unfinished: %s (see the log and updates.error)", len(chats), b.String())
}
