package telegramfake

import (
	"sync"
	"testing"
)

// Updates added at once are queued in the order of their ids, as Telegram
// keeps them: a poll confirms every id below its offset.
func TestConcurrentUpdatesAreQueuedInIDOrder(t *testing.T) {
	s := New("1:x")
	defer s.Close()
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				s.SendText(User{ID: 1, FirstName: "A"}, "hi")
			}
		}()
	}
	wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.ids) != 400 {
		t.Fatalf("%d updates queued, want 400", len(s.ids))
	}
	for i := 1; i < len(s.ids); i++ {
		if s.ids[i] <= s.ids[i-1] {
			t.Fatalf("update %d queued after %d", s.ids[i], s.ids[i-1])
		}
	}
}
