// Package osuser runs a test's commands as another user of the machine, to
// show what that user can and cannot reach: another local user (nobody),
// or the postgres account the machine's own clusters run as. Switching
// users needs root; CI runs the tests as root.
package osuser

import (
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// Require skips t unless it runs as root. With CI=true it fails instead:
// CI runs as root, so there the check always runs.
func Require(t *testing.T) {
	t.Helper()
	if os.Geteuid() == 0 {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("this test switches users, which needs root, and CI must run it")
	}
	t.Skip("switching users needs root (run the tests as root, as CI does, to run this one)")
}

// Command is name with args, run as the user called userName (its uid
// and primary group, no other groups). The test must be root to start it.
func Command(t *testing.T, userName, name string, args ...string) *exec.Cmd {
	t.Helper()
	uid, gid := IDs(t, userName)
	cmd := exec.Command(name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}}
	cmd.Dir = "/" // the test's own directory may be closed to that user
	return cmd
}

// IDs are user's uid and its primary group's gid.
func IDs(t *testing.T, name string) (uid, gid int) {
	t.Helper()
	u, err := user.Lookup(name)
	if err != nil {
		t.Fatalf("user %s: %v", name, err)
	}
	uid, _ = strconv.Atoi(u.Uid)
	gid, _ = strconv.Atoi(u.Gid)
	return uid, gid
}

// PsqlPath is where psql is: in PATH, or beside the server's programs.
func PsqlPath(t *testing.T) string {
	t.Helper()
	if psql, err := exec.LookPath("psql"); err == nil {
		return psql
	}
	for _, pattern := range []string{"/usr/lib/postgresql/*/bin/psql", "/usr/pgsql-*/bin/psql", "/usr/local/pgsql/bin/psql"} {
		if found, _ := filepath.Glob(pattern); len(found) > 0 {
			return found[len(found)-1]
		}
	}
	t.Fatal("psql is needed to try logging in: install the PostgreSQL client (apt install postgresql-client)")
	return ""
}

// Psql tries, as the OS user osUser, to log in to the PostgreSQL whose
// socket is in socketDir, as the database user dbUser, with password
// ("" for none: psql is told never to ask). It returns what psql printed
// and whether it failed.
func Psql(t *testing.T, osUser, socketDir, dbUser, password string) (string, error) {
	t.Helper()
	psql := PsqlPath(t)
	cmd := Command(t, osUser, psql, "-w", "-X", "-At", "-h", socketDir, "-U", dbUser, "-d", "postgres", "-c", "SELECT current_user")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "PGCONNECT_TIMEOUT=10"}
	if password != "" {
		cmd.Env = append(cmd.Env, "PGPASSWORD="+password)
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}
