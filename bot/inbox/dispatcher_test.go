package inbox_test

import (
	"github.com/membot/membot/internal/testing/wait"
	"github.com/membot/membot/memory/queue"

	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/membot/membot/bot/inbox"
	"github.com/membot/membot/internal/testing/pgtest"
	"github.com/membot/membot/memory"
)

// recorder is a handler that notes which updates it handled, in order per
// chat, and whether a chat was ever handled twice at once.
type recorder struct {
	mu       sync.Mutex
	handled  map[int64][]int64
	busy     map[int64]bool
	overlaps int
}

func newRecorder() *recorder {
	return &recorder{handled: map[int64][]int64{}, busy: map[int64]bool{}}
}

func (r *recorder) Handle(ctx context.Context, u *queue.Update) (*queue.Delivery, error) {
	r.mu.Lock()
	if r.busy[u.ChatID] {
		r.overlaps++
	}
	r.busy[u.ChatID] = true
	r.handled[u.ChatID] = append(r.handled[u.ChatID], u.UpdateID)
	r.mu.Unlock()
	if rand.IntN(4) == 0 { // vary the timing of the turns
		time.Sleep(time.Duration(rand.IntN(2000)) * time.Microsecond)
	}
	r.mu.Lock()
	r.busy[u.ChatID] = false
	r.mu.Unlock()
	return nil, nil
}

// GiveUp is never called: no run dies with an update in hand here.
func (r *recorder) GiveUp(ctx context.Context, u *queue.Update) error {
	panic(fmt.Sprintf("update %d given up", u.UpdateID))
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, ids := range r.handled {
		n += len(ids)
	}
	return n
}

// startDispatcher runs a dispatcher with its own owner lock over store
// until the test ends.
func startDispatcher(t *testing.T, store *memory.Store, h inbox.UpdateHandler) *inbox.Dispatcher {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, stop := context.WithCancel(context.Background())
	owner := store.Inbox().HoldOwnerLock(ctx, log)
	d := &inbox.Dispatcher{Queue: store.Inbox(), Handler: h, Owner: owner.ID, Workers: 4, Sweep: 50 * time.Millisecond, Log: log}
	done := make(chan struct{})
	go func() { defer close(done); d.Run(ctx, context.Background()) }()
	t.Cleanup(func() { stop(); <-done; owner.Wait() })
	return d
}

// feed saves n updates of chats 1..chats through the intakes in turn, in
// small batches, as polling or webhooks would, while the dispatchers are
// also notified at random; it returns the ids sent to each chat, in order.
func feed(t *testing.T, intakes []*inbox.Dispatcher, chats, n int) map[int64][]int64 {
	t.Helper()
	ctx := context.Background()
	sent := map[int64][]int64{}
	stopNotify := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // stray notices, as the sweep and a webhook give
		defer wg.Done()
		for {
			select {
			case <-stopNotify:
				return
			case <-time.After(time.Millisecond):
				intakes[rand.IntN(len(intakes))].Notify([]int64{int64(1 + rand.IntN(chats))})
			}
		}
	}()
	defer func() { close(stopNotify); wg.Wait() }()
	id := int64(1000)
	for i := 0; i < n; {
		var batch []queue.Update
		for range 1 + rand.IntN(4) {
			id++
			chat := int64(1 + rand.IntN(chats))
			batch = append(batch, queue.Update{UpdateID: id, ChatID: chat, Payload: []byte(fmt.Sprintf(`{"update_id":%d}`, id))})
			sent[chat] = append(sent[chat], id)
			i++
		}
		if err := intakes[i%len(intakes)].SaveUpdates(ctx, batch); err != nil {
			t.Fatal(err)
		}
		if rand.IntN(3) == 0 {
			time.Sleep(time.Duration(rand.IntN(1500)) * time.Microsecond)
		}
	}
	return sent
}

// checkHandled waits until every update was handled and checks that each
// was handled once, in its chat's order, one at a time.
func checkHandled(t *testing.T, r *recorder, store *memory.Store, sent map[int64][]int64) {
	t.Helper()
	total := 0
	for _, ids := range sent {
		total += len(ids)
	}
	deadline := time.Now().Add(wait.Timeout())
	for r.count() < total && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	var open int
	for time.Now().Before(deadline) {
		store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM updates WHERE state <> 'done'`).Scan(&open)
		if open == 0 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for chat, want := range sent {
		if got := r.handled[chat]; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("chat %d: handled %v, want %v", chat, got, want)
		}
	}
	if r.overlaps > 0 {
		t.Errorf("a chat was handled twice at once %d times", r.overlaps)
	}
	if open != 0 {
		t.Errorf("%d updates still unfinished", open)
	}
}

func TestIntakeClaimsHandleEveryUpdateOnceInOrder(t *testing.T) {
	t.Parallel()
	store, err := memory.Open(context.Background(), pgtest.New(t), 10)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(store.Close)
	r := newRecorder()
	d := startDispatcher(t, store, r)
	checkHandled(t, r, store, feed(t, []*inbox.Dispatcher{d}, 6, 300))
}

// Two processes sharing one database (webhook replicas): each stores what
// it receives; every update is still handled once, in order, whichever
// process stored or handled it.
func TestTwoDispatchersShareTheInbox(t *testing.T) {
	t.Parallel()
	dsn := pgtest.New(t)
	var stores []*memory.Store
	for range 2 {
		store, err := memory.Open(context.Background(), dsn, 10)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(store.Close)
		stores = append(stores, store)
	}
	r := newRecorder()
	a, b := startDispatcher(t, stores[0], r), startDispatcher(t, stores[1], r)
	checkHandled(t, r, stores[0], feed(t, []*inbox.Dispatcher{a, b}, 4, 200))
}

// Webhook requests arrive at once, so intake may store updates of one chat
// concurrently (and, between them, out of order): each is still handled
// exactly once, one at a time per chat.
func TestConcurrentIntakeHandlesEachUpdateOnce(t *testing.T) {
	t.Parallel()
	store, err := memory.Open(context.Background(), pgtest.New(t), 10)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(store.Close)
	r := newRecorder()
	d := startDispatcher(t, store, r)
	var mu sync.Mutex
	sent := map[int64]bool{}
	var next atomic.Int64
	next.Store(5000)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 60 {
				id := next.Add(1)
				u := queue.Update{UpdateID: id, ChatID: int64(1 + rand.IntN(3)), Payload: []byte(fmt.Sprintf(`{"update_id":%d}`, id))}
				if err := d.SaveUpdates(context.Background(), []queue.Update{u}); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				sent[id] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for deadline := time.Now().Add(wait.Timeout()); r.count() < len(sent) && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := map[int64]int{}
	for _, ids := range r.handled {
		for _, id := range ids {
			seen[id]++
		}
	}
	for id := range sent {
		if seen[id] != 1 {
			t.Errorf("update %d handled %d times", id, seen[id])
		}
	}
	if len(seen) != len(sent) || r.overlaps > 0 {
		t.Errorf("%d updates handled for %d sent; a chat handled twice at once %d times", len(seen), len(sent), r.overlaps)
	}
}

// panicky panics on its poisoned updates (and, on those of sorry, in
// GiveUp too), and notes what it handled and when.
type panicky struct {
	poisoned, sorry map[int64]bool
	mu              sync.Mutex
	handles         map[int64]int // by update id
	giveUps         map[int64]int
	handledAt       map[int64]time.Time
}

func (p *panicky) Handle(ctx context.Context, u *queue.Update) (*queue.Delivery, error) {
	p.mu.Lock()
	p.handles[u.UpdateID]++
	p.mu.Unlock()
	if p.poisoned[u.UpdateID] {
		var seen []int64
		_ = seen[len(u.Payload)] // a runtime panic, as a bug would raise
	}
	p.mu.Lock()
	p.handledAt[u.UpdateID] = time.Now()
	p.mu.Unlock()
	return nil, nil
}

func (p *panicky) GiveUp(ctx context.Context, u *queue.Update) error {
	p.mu.Lock()
	p.giveUps[u.UpdateID]++
	p.mu.Unlock()
	if p.sorry[u.UpdateID] {
		panic("the apology panics too")
	}
	return nil
}

// A handler that panics on one update costs that update its attempts and
// nothing else: the process goes on, other chats' updates are handled
// meanwhile, the update is given up (quarantined) after GiveUpAfter
// panics, with the apology, and its chat goes on with the next one. An
// apology that panics too ends it without another try.
func TestAPanickingUpdateIsQuarantinedAfterItsAttemptsWhileOtherChatsGoOn(t *testing.T) {
	t.Parallel()
	store, err := memory.Open(context.Background(), pgtest.New(t), 10)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(store.Close)
	p := &panicky{poisoned: map[int64]bool{101: true, 301: true}, sorry: map[int64]bool{301: true},
		handles: map[int64]int{}, giveUps: map[int64]int{}, handledAt: map[int64]time.Time{}}
	d := startDispatcher(t, store, p)
	update := func(id, chat int64) queue.Update {
		return queue.Update{UpdateID: id, ChatID: chat, Payload: []byte(fmt.Sprintf(`{"update_id":%d}`, id))}
	}
	ctx := context.Background()
	if err := d.SaveUpdates(ctx, []queue.Update{update(101, 1), update(301, 3)}); err != nil {
		t.Fatal(err)
	}
	if err := d.SaveUpdates(ctx, []queue.Update{update(201, 2), update(102, 1)}); err != nil {
		t.Fatal(err)
	}
	done := func(id int64) (crashes int, errText string, doneAt time.Time, ok bool) {
		err := store.Pool().QueryRow(ctx, `SELECT crashes, coalesce(error, ''), done_at FROM updates WHERE update_id = $1 AND state = 'done'`, id).
			Scan(&crashes, &errText, &doneAt)
		return crashes, errText, doneAt, err == nil
	}
	if !wait.Until(10*time.Millisecond, func() bool {
		_, _, _, a := done(102)
		_, _, _, b := done(301)
		return a && b
	}) {
		t.Fatal("the chats after the panicking updates did not go on")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	crashes, errText, quarantinedAt, _ := done(101)
	if p.handles[101] != 3 || p.giveUps[101] != 1 || crashes != 3 ||
		!strings.Contains(errText, "given up") || !strings.Contains(errText, "index out of range") {
		t.Errorf("update 101: handled %d times, given up %d times, crashes %d, error %q; want 3, 1, 3 and the panic",
			p.handles[101], p.giveUps[101], crashes, errText)
	}
	if at, ok := p.handledAt[201]; !ok || !at.Before(quarantinedAt) {
		t.Errorf("chat 2 waited for chat 1's panicking update (handled %v, the update given up %v)", at, quarantinedAt)
	}
	if p.handles[102] != 1 || p.handledAt[102].Before(quarantinedAt) {
		t.Errorf("chat 1's next update: handled %d times, at %v (the panicking one given up at %v)", p.handles[102], p.handledAt[102], quarantinedAt)
	}
	if crashes, errText, _, _ := done(301); p.handles[301] != 3 || p.giveUps[301] != 1 || crashes != 4 || !strings.Contains(errText, "the apology panics too") {
		t.Errorf("update 301: handled %d times, given up %d times, crashes %d, error %q; want 3, 1 (which panicked), 4",
			p.handles[301], p.giveUps[301], crashes, errText)
	}
	for _, id := range []int64{102, 201} {
		if crashes, errText, _, _ := done(id); crashes != 0 || errText != "" {
			t.Errorf("update %d, of another chat or after, has crashes %d, error %q", id, crashes, errText)
		}
	}
}

// showsThenPanics notes that its answer was shown in message 77, then
// panics, the first time; then it succeeds, noting what it was handed.
type showsThenPanics struct {
	store *memory.Store
	mu    sync.Mutex
	runs  int
	shown []int64 // what the second attempt was handed
}

func (s *showsThenPanics) Handle(ctx context.Context, u *queue.Update) (*queue.Delivery, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runs++
	if s.runs == 1 {
		if err := s.store.Inbox().NoteShown(ctx, u.UpdateID, []int64{77}); err != nil {
			return nil, err
		}
		panic("after the answer was shown")
	}
	s.shown = u.Shown
	return nil, nil
}

func (s *showsThenPanics) GiveUp(context.Context, *queue.Update) error { return nil }

// The attempt after a panic goes on from the messages the panicked one
// showed, as a run taking the update over after a crash does, so the
// answer is edited into them rather than sent twice.
func TestTheAttemptAfterAPanicGoesOnFromWhatWasShown(t *testing.T) {
	t.Parallel()
	store, err := memory.Open(context.Background(), pgtest.New(t), 10)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(store.Close)
	h := &showsThenPanics{store: store}
	d := startDispatcher(t, store, h)
	if err := d.SaveUpdates(context.Background(), []queue.Update{{UpdateID: 401, ChatID: 4, Payload: []byte(`{"update_id":401}`)}}); err != nil {
		t.Fatal(err)
	}
	if !wait.Until(10*time.Millisecond, func() bool {
		var n int
		store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM updates WHERE update_id = 401 AND state = 'done' AND crashes = 1 AND error IS NULL`).Scan(&n)
		return n == 1
	}) {
		t.Fatal("the update was not done at its second attempt")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.runs != 2 || fmt.Sprint(h.shown) != "[77]" {
		t.Fatalf("%d attempts; the second was handed shown %v, want [77]", h.runs, h.shown)
	}
}
