package app

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/membot/membot/internal/backoff"
	"github.com/membot/membot/internal/embeddedpg"
	"github.com/membot/membot/internal/netcause"
	"github.com/membot/membot/memory"
)

// dataDir reads DATA_DIR: where the embedded PostgreSQL keeps its data
// when DATABASE_URL is unset. The default is the user's data directory
// ($XDG_DATA_HOME/membot, ~/.local/share/membot; on macOS
// ~/Library/Application Support/membot; /var/lib/membot for root).
func dataDir(e *env) string {
	if dir := e.str("DATA_DIR", ""); dir != "" {
		return dir
	}
	if os.Geteuid() == 0 { // a system service: PostgreSQL runs as another user, who cannot enter root's home
		return "/var/lib/membot"
	}
	if xdg := e.str("XDG_DATA_HOME", ""); xdg != "" && filepath.IsAbs(xdg) {
		return filepath.Join(xdg, "membot")
	}
	home := e.str("HOME", "")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if home == "" {
		return "" // Database says to set DATA_DIR
	}
	if runtime.GOOS == "darwin" {
		return filepath.Join(home, "Library", "Application Support", "membot")
	}
	return filepath.Join(home, ".local", "share", "membot")
}

// Database is the URL of the bot's database: DATABASE_URL, or else the
// embedded PostgreSQL in DATA_DIR, started (or found running) here; stop
// stops what this call started.
func Database(ctx context.Context, cfg DatabaseConfig, log *slog.Logger) (url string, stop func(), err error) {
	if cfg.URL != "" {
		return cfg.URL, func() {}, nil
	}
	if cfg.DataDir == "" {
		return "", nil, &ConfigError{"DATA_DIR: DATABASE_URL is not set, so membot runs a PostgreSQL of its own, and needs DATA_DIR for its data (no home directory here)"}
	}
	srv, err := embeddedpg.Start(ctx, embeddedpg.Options{Dir: cfg.DataDir, Log: log})
	var notFound *embeddedpg.NotFoundError
	if errors.As(err, &notFound) {
		return "", nil, &ConfigError{"DATABASE_URL is not set, and " + err.Error()}
	}
	var setup *embeddedpg.SetupError
	if errors.As(err, &setup) {
		return "", nil, &ConfigError{err.Error()}
	}
	if err != nil {
		return "", nil, err
	}
	return srv.URL, srv.Stop, nil
}

// untilDone retries fn while the database is unreachable, with backoff.
func untilDone(ctx context.Context, log *slog.Logger, what string, fn func() error) error {
	wait := backoff.New(500*time.Millisecond, 15*time.Second)
	for {
		err := fn()
		if err == nil || ctx.Err() != nil {
			return err
		}
		if !memory.IsUnavailable(err) {
			return err // fn's error says what failed: wrapped again, it said so twice
		}
		log.Warn("database unreachable; retrying", "step", what, "cause", netcause.Explain(err, DatabaseService).String(), "err", err, "retry_in", wait.Peek())
		if !wait.Sleep(ctx) {
			return ctx.Err()
		}
	}
}

// poolSize is how many connections the bot may open. A turn holds one only
// for the moment of a batch, never while the model thinks, so a few dozen
// serve any number of workers; one per worker would pass PostgreSQL's
// max_connections (100 by default) with a large WORKERS.
func poolSize(workers int) int32 { return int32(min(workers, 32) + 4) }
