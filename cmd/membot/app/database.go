package app

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"

	"github.com/membot/membot/internal/embeddedpg"
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
