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
	lim := listenerLimits
	lim.MaxConns = 64
	lim.ReadHeaderTimeout = 200 * time.Millisecond
	lim.IdleTimeout = 200 * time.Millisecond
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := &countingListener{Listener: inner}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	srv := serveWithin(lim, slog.New(slog.DiscardHandler), "test", ln, handler, "", "")
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
	if p := ln.peak.Load(); p > int64(lim.MaxConns) || ln.accepted.Load() != attackers {
		t.Errorf("the server held %d connections at once (limit %d), accepted %d", p, lim.MaxConns, ln.accepted.Load())
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

// countingListener counts the connections open at once, below the
// connection limit (which frees a slot only after the close it wraps).
type countingListener struct {
	net.Listener
	open, peak, accepted atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.accepted.Add(1)
	n := l.open.Add(1)
	for p := l.peak.Load(); n > p && !l.peak.CompareAndSwap(p, n); p = l.peak.Load() {
	}
	return &countedConn{Conn: c, l: l}, nil
}

type countedConn struct {
	net.Conn
	l    *countingListener
	once sync.Once
}

func (c *countedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.open.Add(-1) })
	return err
}
