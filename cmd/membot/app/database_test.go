package app

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"testing"
)

// DATA_DIR wins; else the user's data directory (XDG_DATA_HOME, then
// HOME); root, whose home PostgreSQL's own user cannot enter, gets
// /var/lib/membot.
func TestDataDirDefaults(t *testing.T) {
	t.Parallel()
	dir := func(vars map[string]string) string {
		e := &env{getenv: func(k string) (string, bool) { v, ok := vars[k]; return v, ok }, file: map[string]string{}}
		return dataDir(e)
	}
	if got := dir(map[string]string{"DATA_DIR": "/srv/bot", "HOME": "/home/ann"}); got != "/srv/bot" {
		t.Errorf("with DATA_DIR: %q", got)
	}
	xdg, home := "/home/ann/.data/membot", "/home/ann/.local/share/membot"
	switch {
	case os.Geteuid() == 0:
		xdg, home = "/var/lib/membot", "/var/lib/membot"
	case runtime.GOOS == "darwin":
		home = "/home/ann/Library/Application Support/membot"
	}
	if got := dir(map[string]string{"XDG_DATA_HOME": "/home/ann/.data", "HOME": "/home/ann"}); got != xdg {
		t.Errorf("with XDG_DATA_HOME: %q, want %q", got, xdg)
	}
	if got := dir(map[string]string{"HOME": "/home/ann"}); got != home {
		t.Errorf("with HOME: %q, want %q", got, home)
	}
}

// With neither DATABASE_URL nor a DATA_DIR to use, the error names the
// setting.
func TestDatabaseWithoutURLOrDataDir(t *testing.T) {
	t.Parallel()
	_, _, err := Database(context.Background(), DatabaseConfig{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	var cfgErr *ConfigError
	if !errors.As(err, &cfgErr) || !strings.HasPrefix(err.Error(), "DATA_DIR:") {
		t.Fatalf("err = %v, want a config error naming DATA_DIR", err)
	}
	url, stop, err := Database(context.Background(), DatabaseConfig{URL: "postgres://x@db/membot"}, nil)
	if err != nil || url != "postgres://x@db/membot" {
		t.Fatalf("with DATABASE_URL: %q, %v", url, err)
	}
	stop()
}
