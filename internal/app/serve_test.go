package app

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The attack: thousands of connections opened and left idle. Within the
// limits the server holds at most MaxConns of them at once and closes every
// one that sends nothing, so descriptors and memory stay bounded.
func TestIdleConnectionsAreBoundedAndClosed(t *testing.T) {
	t.Parallel()
	const attackers = 3000
	var open, peak atomic.Int64
	lim := listenerLimits
	lim.MaxConns = 64
	lim.ReadHeaderTimeout = 200 * time.Millisecond
	lim.IdleTimeout = 200 * time.Millisecond
	lim.connState = func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			n := open.Add(1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
		case http.StateClosed, http.StateHijacked:
			open.Add(-1)
		}
	}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	srv, err := startServerWithin(lim, slog.New(slog.DiscardHandler), "test", "127.0.0.1:0", handler, "", "")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.stop()
	addr := srv.addr()

	var wg sync.WaitGroup
	var closedByServer atomic.Int64
	for range attackers {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		wg.Go(func() {
			defer c.Close()
			c.SetReadDeadline(time.Now().Add(2 * time.Minute))
			if _, err := c.Read(make([]byte, 1)); err == io.EOF {
				closedByServer.Add(1)
			}
		})
	}
	wg.Wait()

	if n := closedByServer.Load(); n != attackers {
		t.Errorf("the server closed %d of %d idle connections", n, attackers)
	}
	// StateClosed is reported just after the close has freed the slot, so a
	// few new connections may be counted before their predecessors' close.
	if p := peak.Load(); p > int64(lim.MaxConns)+8 {
		t.Errorf("the server held %d connections at once, limit %d", p, lim.MaxConns)
	}
	// And it still answers a real request afterwards.
	resp, err := http.Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("after the flood: %d", resp.StatusCode)
	}
}
