package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/membot/membot/cmd/membot/app"
)

// childEnv marks the process membench starts to run the bot in: the bot is
// a process of its own so that its CPU time and memory can be measured
// apart from the fakes and the load generator.
const childEnv = "MEMBENCH_ROLE"

// cpuProfileEnv names the file the bot process writes its CPU profile to.
const cpuProfileEnv = "MEMBENCH_CPUPROFILE"

// botStats is what the bot process reports about itself on SIGUSR1.
type botStats struct {
	Statements int64            `json:"statements"`
	RoundTrips int64            `json:"round_trips"`
	Calls      map[string]int64 `json:"calls"`
	CPU        time.Duration    `json:"cpu_ns"`     // user + system, since the start
	MaxRSS     int64            `json:"max_rss_kb"` // peak resident set
}

// runChild runs the production bot (cmd/membot/app, configured from the
// environment as membot is) with its database traffic counted, and writes
// its stats as one JSON line to stdout on every SIGUSR1.
func runChild() error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg, err := app.LoadConfig(os.LookupEnv)
	if err != nil {
		return err
	}
	counter := newDBCounter()
	cfg.ConfigurePool = counter.configure
	if path := os.Getenv(cpuProfileEnv); path != "" {
		stopProfile, err := startCPUProfile(path)
		if err != nil {
			return err
		}
		defer stopProfile()
	}

	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	go func() {
		out := json.NewEncoder(os.Stdout)
		for range usr1 {
			if err := out.Encode(counter.snapshot()); err != nil {
				fmt.Fprintln(os.Stderr, "membench bot: write stats:", err)
			}
		}
	}()
	return app.Run(ctx, cfg, app.NewLogger(cfg, os.Stderr))
}

func (c *dbCounter) snapshot() botStats {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return botStats{
		Statements: c.statements.Load(),
		RoundTrips: c.roundTrips.Load(),
		Calls:      c.byCall(),
		CPU:        time.Duration(ru.Utime.Nano() + ru.Stime.Nano()),
		MaxRSS:     ru.Maxrss,
	}
}

func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
