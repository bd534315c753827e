//go:build unix

package embeddedpg

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// account is the user PostgreSQL runs as when membot runs as root, since
// initdb and postgres refuse root.
type account struct {
	name     string
	uid, gid int
}

// accountFor is nil unless membot runs as root. Then PostgreSQL runs as
// the owner of DATA_DIR when that is not root (the operator chose it), or
// else as the system's postgres user, which packages create.
func accountFor(dir string) (*account, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	if info, err := os.Stat(dir); err == nil {
		if st, ok := info.Sys().(*syscall.Stat_t); ok && st.Uid != 0 {
			name := strconv.Itoa(int(st.Uid))
			if u, err := user.LookupId(name); err == nil {
				name = u.Username
			}
			return &account{name: name, uid: int(st.Uid), gid: int(st.Gid)}, nil
		}
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("membot runs as root, and PostgreSQL refuses to: run membot as an ordinary user, " +
			"create a user postgres for the embedded database to run as, or set DATABASE_URL")
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &account{name: u.Username, uid: uid, gid: gid}, nil
}

// own hands path to the account (nothing to do when not root).
func (a *account) own(path string) error {
	if a == nil {
		return nil
	}
	if err := os.Chown(path, a.uid, a.gid); err != nil {
		return fmt.Errorf("hand %s to user %s: %w", path, a.name, err)
	}
	return nil
}

// reaches checks that the account can pass through every directory above
// dir, which it must to use it: the usual failure as root, whose home is
// closed to others.
func (a *account) reaches(dir string) error {
	if a == nil {
		return nil
	}
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		info, err := os.Stat(d)
		if err != nil {
			return fmt.Errorf("DATA_DIR: %w", err)
		}
		mode, st := info.Mode().Perm(), info.Sys().(*syscall.Stat_t)
		var through bool
		switch {
		case int(st.Uid) == a.uid:
			through = mode&0o100 != 0
		case int(st.Gid) == a.gid:
			through = mode&0o010 != 0
		default:
			through = mode&0o001 != 0
		}
		if !through {
			return fmt.Errorf("DATA_DIR %s: the embedded PostgreSQL runs as user %s (PostgreSQL refuses root), and %s is closed to it: "+
				"chmod o+x %s, or set DATA_DIR elsewhere (such as /var/lib/membot), or run membot as an ordinary user", dir, a.name, d, d)
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}

// apply makes cmd run as the account.
func (a *account) apply(cmd *exec.Cmd) {
	if a == nil {
		return
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(a.uid), Gid: uint32(a.gid), NoSetGroups: true}}
}

// hint is added to a failure of initdb run as another user.
func (a *account) hint(dir string) string {
	if a == nil {
		return ""
	}
	return fmt.Sprintf(" (PostgreSQL runs as user %s here, so every directory above %s must let it through: chmod o+x, or choose another DATA_DIR)", a.name, dir)
}

// tryLock takes DATA_DIR's lock without waiting; owner tells whether it
// was free. The lock goes with the process, so a killed membot leaves it
// free for the next one.
func tryLock(path string) (owner bool, unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return false, nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return false, func() {}, nil
	}
	return true, func() { f.Close() }, nil
}

// alive tells whether a process with this pid exists.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}

// isPostgres tells whether pid is a PostgreSQL server, where the system
// says (Linux's /proc); elsewhere a live pid is taken for one.
func isPostgres(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm"))
	if err != nil {
		return true
	}
	comm := strings.TrimSpace(string(b))
	return comm == "postgres" || comm == "postmaster"
}
