package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// cpuTimes is the CPU time, so far, of the two processes beside the bot:
// PostgreSQL (the server processes serving the run's database, read from
// /proc, so only when the server runs on this host) and membench itself
// (the fakes and the simulated chats).
type cpuTimes struct {
	server    map[int]time.Duration // by server process id
	serverOK  bool
	generator time.Duration
}

// readCPU reads the CPU times; pool must hold one connection, whose own
// server process is left out.
func readCPU(ctx context.Context, pool *pgxpool.Pool) cpuTimes {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	c := cpuTimes{server: map[int]time.Duration{}, generator: time.Duration(ru.Utime.Nano() + ru.Stime.Nano())}
	rows, err := pool.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)
	if err != nil {
		return c
	}
	defer rows.Close()
	c.serverOK = true
	for rows.Next() {
		var pid int
		rows.Scan(&pid)
		d, err := processCPU(pid)
		if err != nil {
			c.serverOK = false // another host, or no permission
			continue
		}
		c.server[pid] = d
	}
	return c
}

// since is the CPU time spent between two readings: server processes that
// started in between count whole.
func (c cpuTimes) since(before cpuTimes) (server time.Duration, serverOK bool, generator time.Duration) {
	for pid, d := range c.server {
		server += d - before.server[pid]
	}
	return server, c.serverOK && before.serverOK, c.generator - before.generator
}

// processCPU is the CPU time a process has used, from /proc/PID/schedstat
// (nanoseconds on the CPU).
func processCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", pid))
	if err != nil {
		return 0, err
	}
	fields := strings.Fields(string(b))
	if len(fields) == 0 {
		return 0, fmt.Errorf("empty schedstat of %d", pid)
	}
	ns, err := strconv.ParseInt(fields[0], 10, 64)
	return time.Duration(ns), err
}
