package embeddedpg

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/membot/membot/internal/testing/osuser"
	"github.com/membot/membot/internal/testing/wait"
)

// serverUID is the user the embedded server runs as in this test: the
// test's own, or postgres when the test runs as root.
func serverUID(t *testing.T) int {
	t.Helper()
	if os.Geteuid() != 0 {
		return os.Geteuid()
	}
	uid, _ := osuser.IDs(t, "postgres")
	return uid
}

func modeAndOwner(t *testing.T, path string) (fs.FileMode, int) {
	t.Helper()
	info, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Mode().Perm(), int(info.Sys().(*syscall.Stat_t).Uid)
}

// mkdir makes dir with exactly mode (the umask aside).
func mkdir(t *testing.T, dir string, mode fs.FileMode) {
	t.Helper()
	if err := os.Mkdir(dir, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, mode); err != nil {
		t.Fatal(err)
	}
}

// refused starts on dir and wants a SetupError: one line holding every
// part of want.
func refused(t *testing.T, dir string, want ...string) {
	t.Helper()
	var logs bytes.Buffer
	s, err := Start(context.Background(), Options{Dir: dir, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	if err == nil {
		s.Stop()
		t.Fatalf("started on %s", dir)
	}
	var setup *SetupError
	if !errors.As(err, &setup) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err = %v (%T), want a one-line SetupError", err, err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("the refusal does not say %q: %v", w, err)
		}
	}
}

// empty fails t when dir holds anything: a refused DATA_DIR is left alone.
func empty(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) > 0 {
		t.Errorf("membot wrote in the refused %s: %v", dir, entries)
	}
}

// An existing DATA_DIR only its owner could write to (a plain mkdir, 0755)
// is closed to 0700 and used: what is in it is its owner's, so narrowing
// it loses nothing. One that others may write to (0777, 0775) is refused:
// what is in it may be anyone's (a planted pgdata or password file), and
// closing it would bless that. A symbolic link is refused and its target
// left as it was; so is another user's directory.
func TestAnExistingDataDirIsClosedOrRefused(t *testing.T) {
	t.Parallel()
	server := serverUID(t)

	t.Run("0755 is closed to 0700", func(t *testing.T) {
		t.Parallel()
		dir := dataDir(t)
		mkdir(t, dir, 0o755) // as root it is root's, made for membot (sudo mkdir): handed to postgres
		var logs bytes.Buffer
		s := start(t, dir, &logs)
		defer s.Stop()
		if mode, owner := modeAndOwner(t, dir); mode != 0o700 || owner != server {
			t.Errorf("DATA_DIR is %04o, user %d; want 0700, user %d", mode, owner, server)
		}
		if n := query(t, s.URL, `SELECT 1`); n != 1 {
			t.Fatal("the bot's URL does not answer")
		}
	})

	for _, mode := range []fs.FileMode{0o777, 0o775} {
		t.Run(fmt.Sprintf("%04o is refused", mode), func(t *testing.T) {
			t.Parallel()
			dir := dataDir(t)
			mkdir(t, dir, mode)
			refused(t, dir, dir, "chmod 700 "+dir)
			if got, _ := modeAndOwner(t, dir); got != mode {
				t.Errorf("the refused DATA_DIR's mode changed: %04o", got)
			}
			empty(t, dir)
		})
	}

	t.Run("a symbolic link is refused and its target left as it is", func(t *testing.T) {
		t.Parallel()
		target := dataDir(t)
		mkdir(t, target, 0o755)
		link := filepath.Join(filepath.Dir(target), "link")
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		refused(t, link, "symbolic link", "DATA_DIR="+target)
		if mode, owner := modeAndOwner(t, target); mode != 0o755 || owner != os.Geteuid() {
			t.Errorf("the link's target is now %04o, user %d", mode, owner)
		}
		empty(t, target)
	})

	t.Run("another user's directory is refused", func(t *testing.T) {
		t.Parallel()
		if os.Geteuid() != 0 {
			// root's /: not this user's, and nothing may be written there
			refused(t, "/", "DATA_DIR / belongs to user root", "sudo chown -R ")
			return
		}
		dir := dataDir(t)
		mkdir(t, dir, 0o700)
		nobody, nogroup := osuser.IDs(t, "nobody")
		if err := os.Chown(dir, nobody, nogroup); err != nil {
			t.Fatal(err)
		}
		refused(t, dir, "belongs to user nobody", "run membot as nobody", "sudo chown -R postgres:")
		if mode, owner := modeAndOwner(t, dir); mode != 0o700 || owner != nobody {
			t.Errorf("the refused DATA_DIR is now %04o, user %d", mode, owner)
		}
		empty(t, dir)
	})

	t.Run("a directory of root's holding other files is not handed over", func(t *testing.T) {
		t.Parallel()
		osuser.Require(t)
		dir := dataDir(t)
		mkdir(t, dir, 0o755)
		if err := os.WriteFile(filepath.Join(dir, "passwd"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		refused(t, dir, filepath.Join(dir, "passwd"), "not membot's")
		if mode, owner := modeAndOwner(t, dir); mode != 0o755 || owner != 0 {
			t.Errorf("root's directory is now %04o, user %d", mode, owner)
		}
	})
}

// withoutPassword is url with its password taken out.
func withoutPassword(t *testing.T, u, password string) string {
	t.Helper()
	parsed, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	if password == "" {
		parsed.User = url.User(parsed.User.Username())
	} else {
		parsed.User = url.UserPassword(parsed.User.Username(), password)
	}
	return parsed.String()
}

func connects(url string) error {
	ctx, cancel := context.WithTimeout(context.Background(), wait.Timeout())
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err == nil {
		conn.Close(ctx)
	}
	return err
}

// Only the password in DATA_DIR lets anyone in: not this process without
// it, not another local user (nobody: the directory shuts it out, and with
// the directory opened by mistake the password still does), not the
// postgres account (which the server runs as under root, so it reaches
// the socket, and which other clusters' superusers can run programs as).
// Neither of them can read the password.
func TestOnlyThePasswordLetsIn(t *testing.T) {
	t.Parallel()
	dir := dataDir(t)
	var logs bytes.Buffer
	s := start(t, dir, &logs)
	defer s.Stop()
	if n := query(t, s.URL, `SELECT count(*) FROM pg_hba_file_rules WHERE type <> 'local' OR auth_method <> 'scram-sha-256'`); n != 0 {
		t.Errorf("pg_hba.conf has %d rules other than local scram-sha-256", n)
	}
	passwordPath := filepath.Join(dir, passwordFile)
	if mode, owner := modeAndOwner(t, passwordPath); mode != 0o600 || owner != os.Geteuid() {
		t.Errorf("%s is %04o, user %d; want 0600, this process's", passwordPath, mode, owner)
	}
	if err := connects(withoutPassword(t, s.URL, "")); err == nil {
		t.Error("connected without the password")
	}
	if err := connects(withoutPassword(t, s.URL, "guess")); err == nil || !strings.Contains(err.Error(), "password authentication failed") {
		t.Errorf("a wrong password: %v", err)
	}
	if strings.Contains(logs.String(), s.password) {
		t.Error("the password is in the log")
	}
	// The operator's way in (docs/ADMIN.md): the password file as PGPASSFILE.
	psql := exec.Command(osuser.PsqlPath(t), "-w", "-X", "-At", "-h", dir, "-U", userName, "-d", database, "-c", "SELECT current_user")
	psql.Env = []string{"PGPASSFILE=" + passwordPath}
	if out, err := psql.CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != userName {
		t.Errorf("psql with PGPASSFILE=%s: %v: %s", passwordPath, err, out)
	}

	osuser.Require(t)
	if out, err := osuser.Psql(t, "nobody", dir, userName, ""); err == nil || !strings.Contains(out, "Permission denied") {
		t.Errorf("nobody: %v: %s", err, out)
	}
	for _, dbUser := range []string{userName, "postgres"} {
		if out, err := osuser.Psql(t, "postgres", dir, dbUser, ""); err == nil || !strings.Contains(out, "no password supplied") {
			t.Errorf("postgres as %s: %v: %s", dbUser, err, out)
		}
	}
	for _, who := range []string{"nobody", "postgres"} {
		if out, err := osuser.Command(t, who, "cat", passwordPath).CombinedOutput(); err == nil {
			t.Errorf("%s read the password: %s", who, out)
		}
	}

	// The directory and socket opened by mistake: the password still stands.
	socket := filepath.Join(dir, ".s.PGSQL.5432")
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(socket, 0o777); err != nil {
		t.Fatal(err)
	}
	if out, err := osuser.Psql(t, "nobody", dir, userName, ""); err == nil || !strings.Contains(out, "no password supplied") {
		t.Errorf("nobody, the directory opened: %v: %s", err, out)
	}
	if out, err := osuser.Psql(t, "nobody", dir, userName, s.password); err != nil || strings.TrimSpace(out) != userName {
		t.Errorf("nobody with the password did not get in, so the refusals above prove nothing: %v: %s", err, out)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
}

// A cluster a membot made with trust (as it once did), left running by a
// membot killed with -9, is stopped, given a password and started with
// pg_hba.conf asking for it; its data stays.
func TestATrustingClusterGetsAPassword(t *testing.T) {
	t.Parallel()
	dir := dataDir(t)
	var logs bytes.Buffer
	s := start(t, dir, &logs)
	keep42(t, s.URL)
	s.unlock() // membot dies; its server stays
	s.unlock = nil

	// What an older membot left: trust, and no password file.
	if err := os.WriteFile(filepath.Join(s.pgdata, "pg_hba.conf"), []byte("local all all trust\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := s.pgCtl("reload"); err != nil {
		t.Fatalf("reload: %v: %s", err, out)
	}
	if err := os.Remove(filepath.Join(dir, passwordFile)); err != nil {
		t.Fatal(err)
	}
	trusting := withoutPassword(t, s.URL, "")
	if !wait.Until(50*time.Millisecond, func() bool { return connects(trusting) == nil }) {
		t.Fatal("the cluster set up to trust does not let this process in without a password")
	}

	logs.Reset()
	s = start(t, dir, &logs)
	defer s.Stop()
	for _, said := range []string{"stopping the embedded PostgreSQL a membot left running", "now requires a password"} {
		if !strings.Contains(logs.String(), said) {
			t.Errorf("the log does not say %q:\n%s", said, &logs)
		}
	}
	if err := connects(trusting); err == nil {
		t.Error("still connects without a password")
	}
	if !s.hbaCurrent() {
		t.Error("pg_hba.conf was not replaced")
	}
	if n := query(t, s.URL, `SELECT n FROM kept`); n != 42 {
		t.Fatalf("kept = %d", n)
	}
}
