package main

import (
	"context"
	"net"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// dbCounter counts the bot's database traffic from inside the bot process:
// statements with a pgx tracer, round trips on the wire.
type dbCounter struct {
	statements atomic.Int64
	roundTrips atomic.Int64

	mu    sync.Mutex
	calls map[string]int64 // calls (queries and batches) by their first statement
}

func newDBCounter() *dbCounter { return &dbCounter{calls: map[string]int64{}} }

// configure installs the counter on a pool's connections (the owner lock's
// connection is a copy of the same settings, so it is counted too).
func (c *dbCounter) configure(cfg *pgxpool.Config) {
	cfg.ConnConfig.Tracer = c
	dial := cfg.ConnConfig.DialFunc
	cfg.ConnConfig.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		cc := &countingConn{Conn: conn, trips: &c.roundTrips}
		cc.answered.Store(true)
		return cc, nil
	}
}

// byCall returns a copy of the per-call counts.
func (c *dbCounter) byCall() map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int64, len(c.calls))
	for k, v := range c.calls {
		out[k] = v
	}
	return out
}

func (c *dbCounter) call(kind, sql string) {
	c.mu.Lock()
	c.calls[kind+" "+label(sql)]++
	c.mu.Unlock()
}

// label shortens a statement to its first words, on one line.
func label(sql string) string {
	s := strings.Join(strings.Fields(sql), " ")
	if len(s) > 70 {
		s = s[:70] + "…"
	}
	return s
}

func (c *dbCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	c.statements.Add(1)
	c.call("query", data.SQL)
	return ctx
}

func (c *dbCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (c *dbCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceBatchStartData) context.Context {
	if q := data.Batch.QueuedQueries; len(q) > 0 {
		c.call("batch", q[0].SQL)
	}
	return ctx
}

func (c *dbCounter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {
	c.statements.Add(1)
}

func (c *dbCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// countingConn counts round trips: a write that follows a read starts a new
// one. Writes in a row (a pipelined batch) are one round trip; a statement
// the connection has not prepared yet costs one more (prepare, then run).
type countingConn struct {
	net.Conn
	trips    *atomic.Int64
	answered atomic.Bool // the last thing that happened was a read
}

func (c *countingConn) Write(p []byte) (int, error) {
	if c.answered.Swap(false) {
		c.trips.Add(1)
	}
	return c.Conn.Write(p)
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.answered.Store(true)
	}
	return n, err
}
