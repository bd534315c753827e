package embeddedpg

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
)

// dataDir is a DATA_DIR for one test. As root, PostgreSQL runs as another
// user, which must be able to pass through the test's directories.
func dataDir(t *testing.T) string {
	t.Helper()
	binaries(t)
	base := t.TempDir()
	if os.Geteuid() == 0 {
		for d := base; d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	return filepath.Join(base, "data")
}

// binaries are the PostgreSQL binaries of this machine. .ci/run installs
// PostgreSQL where it is missing, so with CI=true their absence is
// a failure; a developer without them is told what to install.
func binaries(t *testing.T) Binaries {
	t.Helper()
	b, err := Find(candidates(), 0)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return b
}

func start(t *testing.T, dir string, logs *bytes.Buffer) *Server {
	t.Helper()
	s, err := Start(context.Background(), Options{Dir: dir, Log: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatalf("start: %v\nlogs:\n%s", err, logs)
	}
	return s
}

// do runs f on a new connection to url.
func do(t *testing.T, url string, f func(context.Context, *pgx.Conn) error) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := f(ctx, conn); err != nil {
		t.Fatal(err)
	}
}

func query(t *testing.T, url, sql string, args ...any) (n int) {
	t.Helper()
	do(t, url, func(ctx context.Context, conn *pgx.Conn) error { return conn.QueryRow(ctx, sql, args...).Scan(&n) })
	return n
}

// keep42 stores 42 in a table kept, for a later start to find.
func keep42(t *testing.T, url string) {
	t.Helper()
	do(t, url, func(ctx context.Context, conn *pgx.Conn) error {
		_, err := conn.Exec(ctx, `CREATE TABLE kept (n int); INSERT INTO kept VALUES (42)`)
		return err
	})
}

// postmasterPid is the running server's pid, 0 when none runs.
func postmasterPid(dir string) int {
	b, err := os.ReadFile(filepath.Join(dir, "pgdata", "postmaster.pid"))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0])
	return pid
}

// The first start makes the cluster and the database; a stop stops the
// server; the next start reuses the data.
func TestStartsOnceAndReusesItsData(t *testing.T) {
	t.Parallel()
	dir := dataDir(t)
	var logs bytes.Buffer
	s := start(t, dir, &logs)
	if !strings.Contains(logs.String(), "creating the embedded PostgreSQL cluster") {
		t.Errorf("the first start did not say it creates the cluster:\n%s", &logs)
	}
	if !strings.Contains(s.URL, "host="+escaped(dir)) {
		t.Errorf("URL %q does not use the socket in DATA_DIR", s.URL)
	}
	keep42(t, s.URL)
	if n := query(t, s.URL, `SELECT count(*) FROM pg_settings WHERE name = 'listen_addresses' AND setting = ''`); n != 1 {
		t.Error("the embedded server listens on TCP")
	}
	s.Stop()
	if pid := postmasterPid(dir); pid != 0 {
		t.Fatalf("the server (pid %d) still runs after Stop", pid)
	}

	logs.Reset()
	s = start(t, dir, &logs)
	defer s.Stop()
	if strings.Contains(logs.String(), "creating") {
		t.Errorf("the second start made the cluster again:\n%s", &logs)
	}
	if n := query(t, s.URL, `SELECT n FROM kept`); n != 42 {
		t.Fatalf("kept = %d after a restart", n)
	}
}

func escaped(dir string) string { return strings.ReplaceAll(dir, "/", "%2F") }

// A membot killed with -9 leaves its server running: the next start takes
// it over (and stops it at the end). A server killed with -9 too leaves a
// postmaster.pid whose pid may since be another program's: it is cleared.
func TestStartAfterKill9(t *testing.T) {
	t.Parallel()
	dir := dataDir(t)
	var logs bytes.Buffer
	s := start(t, dir, &logs)
	s.unlock() // as if membot died: its lock goes, the server stays
	s.unlock = nil
	pid := postmasterPid(dir)

	logs.Reset()
	s = start(t, dir, &logs)
	if !strings.Contains(logs.String(), "taking over") || postmasterPid(dir) != pid {
		t.Fatalf("the left server was not taken over (pid %d, now %d):\n%s", pid, postmasterPid(dir), &logs)
	}
	s.unlock()
	s.unlock = nil

	// Now the server dies too, and its pid is reused by a live program
	// that is not PostgreSQL (this test).
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for alive(pid) {
		syscall.Kill(pid, 0)
	}
	pidPath := filepath.Join(dir, "pgdata", "postmaster.pid")
	b, err := os.ReadFile(pidPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(b), "\n", 2)
	if err := os.WriteFile(pidPath, []byte(strconv.Itoa(os.Getpid())+"\n"+lines[1]), 0o600); err != nil {
		t.Fatal(err)
	}
	logs.Reset()
	s = start(t, dir, &logs)
	defer s.Stop()
	if !strings.Contains(logs.String(), "stale postmaster.pid") {
		t.Errorf("no word of the stale postmaster.pid:\n%s", &logs)
	}
	query(t, s.URL, `SELECT 1`)
}

// A second membot on the same DATA_DIR (an admin command while the bot
// runs) connects to the running server and leaves it running.
func TestASecondMembotSharesTheServer(t *testing.T) {
	t.Parallel()
	dir := dataDir(t)
	var logs bytes.Buffer
	first := start(t, dir, &logs)
	defer first.Stop()
	var logs2 bytes.Buffer
	second := start(t, dir, &logs2)
	if !strings.Contains(logs2.String(), "another membot runs") {
		t.Errorf("the second start did not say it connects to the first one's server:\n%s", &logs2)
	}
	second.Stop()
	if n := query(t, first.URL, `SELECT 1`); n != 1 {
		t.Fatal("the first membot's server is gone")
	}
}

// Without binaries the error says what to install, in one line.
func TestNoBinariesSaysWhatToInstall(t *testing.T) {
	t.Parallel()
	_, err := Find([]string{t.TempDir()}, 0)
	var nf *NotFoundError
	if !errors.As(err, &nf) {
		t.Fatalf("err = %v, want a NotFoundError", err)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || !strings.Contains(msg, "DATABASE_URL") || !strings.Contains(msg, "install") {
		t.Errorf("the message is not one line naming what to install or set: %q", msg)
	}
	for _, goos := range []string{"linux", "darwin"} {
		if !strings.Contains(InstallHint(goos), "postgresql") {
			t.Errorf("%s: %q names no package", goos, InstallHint(goos))
		}
	}
}

// Data made by one major version is not handed to another.
func TestAnotherMajorVersionIsRefused(t *testing.T) {
	t.Parallel()
	b := binaries(t)
	_, err := Find([]string{b.Dir}, b.Major+1)
	if err == nil || !strings.Contains(err.Error(), "pg_upgrade") {
		t.Fatalf("err = %v, want advice to install that version or pg_upgrade", err)
	}
}
