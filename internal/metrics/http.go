package metrics

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Check is one condition of readiness: Probe returns nil when it holds.
type Check struct {
	Name  string
	Probe func(ctx context.Context) error
}

// Handler serves /healthz (the process answers), /readyz (every check
// holds; 503 and the failures otherwise) and /metrics.
func (m *Metrics) Handler(checks ...Check) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		var report strings.Builder
		status := http.StatusOK
		for _, c := range checks {
			if err := c.Probe(ctx); err != nil {
				status = http.StatusServiceUnavailable
				fmt.Fprintf(&report, "%s: %v\n", c.Name, err)
				continue
			}
			fmt.Fprintf(&report, "%s: ok\n", c.Name)
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(status)
		fmt.Fprint(w, report.String())
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
	return mux
}
