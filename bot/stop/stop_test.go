package stop

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/internal/testing/wait"
	"github.com/membot/membot/memory/queue"
)

// inbox holds the chat's requests to stop and answers StopRequests as
// memory does: those after update after, oldest first. It records each
// after it was asked from.
type inbox struct {
	mu    sync.Mutex
	reqs  []queue.StopRequest
	fails int // how many of the next calls fail
	after []int64
}

func (b *inbox) StopRequests(_ context.Context, _, _, _, after int64) ([]queue.StopRequest, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.after = append(b.after, after)
	if b.fails > 0 {
		b.fails--
		return nil, errors.New("database away")
	}
	var out []queue.StopRequest
	for _, r := range b.reqs {
		if r.UpdateID > after {
			out = append(out, r)
		}
	}
	return out, nil
}

func (b *inbox) add(updateID, userID int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reqs = append(b.reqs, queue.StopRequest{UpdateID: updateID, UserID: userID})
}

func (b *inbox) looks() []int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]int64(nil), b.after...)
}

// setup is the watch of the answer to update 100, which user 1 asked for
// and admin 9 may stop too.
func setup(t *testing.T, b *inbox) Watch {
	t.Helper()
	return Watch{Requests: b, Every: 2 * time.Millisecond, ChatID: -5, UpdateID: 100,
		May: func(_ context.Context, userID int64) (bool, error) { return userID == 1 || userID == 9, nil },
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

func stopped(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), agent.ErrStopped)
}

func TestARequestFromWhoMayStopsTheTurn(t *testing.T) {
	t.Parallel()
	for _, by := range []int64{1, 9} {
		b := &inbox{}
		ctx, end := setup(t, b).Start(context.Background())
		b.add(101, by)
		if !wait.Until(time.Millisecond, func() bool { return stopped(ctx) }) {
			t.Errorf("a request from %d did not stop the turn: cause %v", by, context.Cause(ctx))
		}
		end()
	}
}

func TestARequestFromAnotherIsIgnoredAndNotDecidedAgain(t *testing.T) {
	t.Parallel()
	b := &inbox{}
	asked := map[int64]int{}
	var mu sync.Mutex
	w := setup(t, b)
	may := w.May
	w.May = func(ctx context.Context, userID int64) (bool, error) {
		mu.Lock()
		asked[userID]++
		mu.Unlock()
		return may(ctx, userID)
	}
	b.add(101, 2)
	ctx, end := w.Start(context.Background())
	defer end()
	if !wait.Until(time.Millisecond, func() bool { looks := b.looks(); return len(looks) > 3 && looks[len(looks)-1] == 101 }) {
		t.Fatalf("the watch did not move past the ignored request: looked after %v", b.looks())
	}
	if ctx.Err() != nil {
		t.Fatalf("another user's request stopped the turn: %v", context.Cause(ctx))
	}
	b.add(102, 1)
	if !wait.Until(time.Millisecond, func() bool { return stopped(ctx) }) {
		t.Fatal("the asker's request after another's did not stop the turn")
	}
	mu.Lock()
	defer mu.Unlock()
	if asked[2] != 1 {
		t.Errorf("whether user 2 may stop was asked %d times, want once", asked[2])
	}
	if looks := b.looks(); looks[0] != 100 {
		t.Errorf("the first look was after update %d, want the answer's own 100", looks[0])
	}
}

func TestFailuresAreLookedAtAgain(t *testing.T) {
	t.Parallel()
	b := &inbox{fails: 2}
	w := setup(t, b)
	var mu sync.Mutex
	mayFails := 2
	may := w.May
	w.May = func(ctx context.Context, userID int64) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		if mayFails > 0 {
			mayFails--
			return false, errors.New("telegram away")
		}
		return may(ctx, userID)
	}
	b.add(101, 1)
	ctx, end := w.Start(context.Background())
	defer end()
	if !wait.Until(time.Millisecond, func() bool { return stopped(ctx) }) {
		t.Fatalf("a request not decided for failures was not decided again: looked after %v", b.looks())
	}
	for _, after := range b.looks() {
		if after != 100 {
			t.Errorf("a look after %d: a request not decided was skipped", after)
		}
	}
}

func TestEndReleasesTheWatchWithoutStopping(t *testing.T) {
	t.Parallel()
	b := &inbox{}
	ctx, end := setup(t, b).Start(context.Background())
	end()
	if ctx.Err() == nil || stopped(ctx) {
		t.Errorf("after end the turn's context: %v, cause %v; want cancelled, not stopped", ctx.Err(), context.Cause(ctx))
	}
}
