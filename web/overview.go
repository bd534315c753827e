package web

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/membot/membot/memory/console"
)

// OverviewStore is what the overview reads: the day's counts and the
// recent failures (memory/console.Store).
type OverviewStore interface {
	Overview(ctx context.Context, dayStart time.Time) (console.Overview, error)
	RecentFailures(ctx context.Context, since time.Time) ([]console.Failure, error)
}

// Check is one line of membot doctor's, for the overview.
type Check struct {
	Name   string `json:"name"`
	Mark   string `json:"mark"` // ✓, ✗ or – (not set)
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}

// checkRun is the overview's last run of the checks.
type checkRun struct {
	mu     sync.Mutex
	at     time.Time
	lines  []Check
	active bool
}

func (s *Server) overview(w http.ResponseWriter, r *http.Request, v viewer) error {
	ctx := r.Context()
	now := time.Now()
	counts, err := s.deps.Overview.Overview(ctx, s.dayStart(now))
	if err != nil {
		return err
	}
	failures, err := s.deps.Overview.RecentFailures(ctx, now.Add(-24*time.Hour))
	if err != nil {
		return err
	}
	s.checks.mu.Lock()
	checks, checkedAt, checking := s.checks.lines, s.checks.at, s.checks.active
	s.checks.mu.Unlock()
	return s.render(w, r, v, "overview", "Overview", map[string]any{
		"counts": counts, "failures": failures, "checks": checks, "checked_at": checkedAt,
		"checking": checking, "can_check": s.deps.Checks != nil,
	})
}

// runChecks runs membot doctor's checks, one run at a time: each makes
// small real calls (a picture among them, when pictures are on), so they
// run when an operator asks, not at every look at the overview.
func (s *Server) runChecks(w http.ResponseWriter, r *http.Request, v viewer) error {
	if s.deps.Checks == nil {
		return errNotFound
	}
	s.checks.mu.Lock()
	if s.checks.active {
		s.checks.mu.Unlock()
		return s.back(w, r, "/", map[string]any{"running": true})
	}
	s.checks.active = true
	s.checks.mu.Unlock()
	// In the background: the checks may take longer than a response may.
	go func() {
		var lines []Check
		defer func() {
			if p := recover(); p != nil {
				s.deps.Log.Error("web: the checks panicked", "panic", p)
				lines = []Check{{Name: "checks", Mark: "✗", Detail: "the checks stopped with an error; the log says which"}}
			}
			s.checks.mu.Lock()
			s.checks.lines, s.checks.at, s.checks.active = lines, time.Now(), false
			s.checks.mu.Unlock()
		}()
		ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), 2*time.Minute)
		defer cancel()
		lines = s.deps.Checks(ctx)
	}()
	s.changed(r, v, 0, "run_checks", nil)
	return s.back(w, r, "/", map[string]any{"running": true})
}
