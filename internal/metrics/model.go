package metrics

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// FailingCalls is how many model calls in a row must fail, with none
// succeeding in between, before /readyz reports the model's server as
// failing: one failure is weather, a run of them is a setting or an outage.
const FailingCalls = 5

// modelHealth follows each model's last calls from what the agent reports
// anyway (no probing, so no cost): per model, the failures since its last
// success and the newest failure's status. Its size is bounded by the
// configured models.
type modelHealth struct {
	mu      sync.Mutex
	failing map[string]failures
}

type failures struct {
	inARow int
	status string
}

// record notes one call's outcome ("ok", an HTTP status, "timeout", ...).
func (h *modelHealth) record(model, status string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if status == "ok" {
		delete(h.failing, model)
		return
	}
	if h.failing == nil {
		h.failing = map[string]failures{}
	}
	f := h.failing[model]
	h.failing[model] = failures{inARow: f.inARow + 1, status: status}
}

// ModelCheck is the readiness check of the model servers: it fails while
// some model's last FailingCalls calls or more all failed.
func (m *Metrics) ModelCheck() Check {
	return Check{Name: "model", Probe: func(context.Context) error {
		m.models.mu.Lock()
		defer m.models.mu.Unlock()
		var bad []string
		for model, f := range m.models.failing {
			if f.inARow >= FailingCalls {
				bad = append(bad, fmt.Sprintf("%s: the last %d calls failed (the newest: %s)", model, f.inARow, f.status))
			}
		}
		if len(bad) == 0 {
			return nil
		}
		slices.Sort(bad)
		return fmt.Errorf("%s", strings.Join(bad, "; "))
	}}
}
