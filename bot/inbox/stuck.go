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

	mu     sync.Mutex
	since  map[int64]time.Time
	logged map[int64]bool  // blocked chats the log has been told of
	errs   map[int64]error // the last failure of each chat's update, retried
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

// end notes that the chat's worker is done with its update; it reports
// whether the chat was logged as blocked, and for how long it was.
func (s *Stuck) end(chat int64) (wasLogged bool, took time.Duration) {
	if s == nil {
		return false, 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	wasLogged, took = s.logged[chat], time.Since(s.since[chat])
	delete(s.since, chat)
	delete(s.logged, chat)
	delete(s.errs, chat)
	return wasLogged, took
}

// newlyBlocked lists the chats blocked since the last call, with how long.
func (s *Stuck) newlyBlocked() map[int64]time.Duration {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[int64]time.Duration{}
	for chat, start := range s.since {
		if s.over(start) && !s.logged[chat] {
			if s.logged == nil {
				s.logged = map[int64]bool{}
			}
			s.logged[chat] = true
			out[chat] = time.Since(start).Round(time.Second)
		}
	}
	return out
}

// over reports whether an update taken up at start has blocked its chat.
func (s *Stuck) over(start time.Time) bool {
	return s != nil && time.Since(start) >= s.bound()
}

// blocked lists the blocked chats, longest blocked first, with how long.
func (s *Stuck) blocked() (chats []int64, took []time.Duration) {
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
		took = append(took, time.Since(s.since[chat]).Round(time.Second))
	}
	return chats, took
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

// failed notes why the chat's update is being retried.
func (s *Stuck) failed(chat int64, err error) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.errs == nil {
		s.errs = map[int64]error{}
	}
	s.errs[chat] = err
}

// lastErr is the chat's update's last failure, or "none" (a turn in hand).
func (s *Stuck) lastErr(chat int64) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.errs[chat]; err != nil {
		return err.Error()
	}
	return "none: still in hand"
}
