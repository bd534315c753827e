//go:build unix

package embeddedpg

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// noFollow makes open refuse a symbolic link.
const noFollow = syscall.O_NOFOLLOW

// account is the user PostgreSQL runs as when membot runs as root, since
// initdb and postgres refuse root.
type account struct {
	name     string
	uid, gid int
}

// accountFor is nil unless membot runs as root. Then PostgreSQL runs as
// the system's postgres user, which packages create.
func accountFor() (*account, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, &SetupError{"membot runs as root, and PostgreSQL refuses to: run membot as an ordinary user (docs/OPERATIONS.md), " +
			"create a user postgres for the embedded database to run as, or set DATABASE_URL"}
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

// serverUID is the user the server runs as: the account, else this process's.
func (a *account) serverUID() int {
	if a == nil {
		return os.Geteuid()
	}
	return a.uid
}

// ownEntries are what membot keeps in DATA_DIR. A directory root made
// (sudo mkdir) is handed to the account only when it holds nothing else:
// DATA_DIR=/etc by mistake must not give /etc to postgres.
var ownEntries = []string{"pgdata", "membot.lock", "postgres.log", passwordFile, "lost+found"}

// prepareDir makes DATA_DIR, or checks the one there, so that only the
// server's user reaches it: a directory of that user's, mode 0700. A
// directory only its owner could write to (0755, a plain mkdir) is closed
// to 0700: what is in it is that owner's. A symbolic link, a directory
// others may write to (what is in it may be anyone's), or one of another
// user is refused, with the command that fixes it.
func prepareDir(dir string, a *account) error {
	if err := os.Mkdir(dir, 0o700); err == nil {
		return a.own(dir)
	} else if !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("create DATA_DIR: %w", err)
	}
	info, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("DATA_DIR: %w", err)
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		target, err := filepath.EvalSymlinks(dir)
		if err != nil {
			target = "the directory it points to"
		}
		return &SetupError{fmt.Sprintf("DATA_DIR %s is a symbolic link; membot keeps its database only in a real directory: set DATA_DIR=%s", dir, target)}
	}
	if !info.IsDir() {
		return &SetupError{fmt.Sprintf("DATA_DIR %s is not a directory: set DATA_DIR to a directory (membot creates it)", dir)}
	}
	perm, st := info.Mode().Perm(), info.Sys().(*syscall.Stat_t)
	if perm&0o022 != 0 {
		return &SetupError{fmt.Sprintf("DATA_DIR %s may be written by other users (mode %04o), so what is in it may not be membot's: "+
			"check its contents, then chmod 700 %s (or set DATA_DIR to a new directory)", dir, perm, dir)}
	}
	switch owner := int(st.Uid); {
	case owner == a.serverUID():
	case owner == 0 && a != nil: // made by root for membot (sudo mkdir): hand it over
		if other := otherEntry(dir); other != "" {
			return &SetupError{fmt.Sprintf("DATA_DIR %s holds %s, which is not membot's: set DATA_DIR to a new or empty directory", dir, other)}
		}
		if err := a.own(dir); err != nil {
			return err
		}
	default:
		return notYours(dir, dir, owner, a)
	}
	if perm != 0o700 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("DATA_DIR: %w", err)
		}
	}
	if info, err := os.Lstat(filepath.Join(dir, "pgdata")); err == nil {
		if owner := int(info.Sys().(*syscall.Stat_t).Uid); owner != a.serverUID() {
			return notYours(dir, filepath.Join(dir, "pgdata"), owner, a)
		}
	}
	return nil
}

// otherEntry is the name of something in dir that is not membot's, "" when
// there is none.
func otherEntry(dir string) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err.Error()
	}
	for _, e := range entries {
		if !slices.Contains(ownEntries, e.Name()) {
			return filepath.Join(dir, e.Name())
		}
	}
	return ""
}

// notYours says that path, in DATA_DIR dir, belongs to another user than
// the one PostgreSQL runs as, and how to hand it over: the usual cause is
// a first run as root (its files belong to postgres) before the service
// user's.
func notYours(dir, path string, owner int, a *account) error {
	what, server := path, a.serverUID()
	if path == dir {
		what = "DATA_DIR " + dir
	}
	fix := fmt.Sprintf("sudo chown -R %s:%s %s", accountName(server), groupName(server), dir)
	if a != nil {
		return &SetupError{fmt.Sprintf("%s belongs to user %s, but membot runs as root and its PostgreSQL as user %s: run membot as %s, or hand DATA_DIR over: %s",
			what, accountName(owner), a.name, accountName(owner), fix)}
	}
	return &SetupError{fmt.Sprintf("%s belongs to user %s, not to %s, who runs membot (a run as root leaves its files to postgres): hand DATA_DIR over: %s",
		what, accountName(owner), accountName(server), fix)}
}

// deniedBy turns a permission error on path, in DATA_DIR dir, into
// notYours when another user owns path; any other error is returned as it
// is.
func deniedBy(dir, path string, a *account, err error) error {
	if errors.Is(err, fs.ErrPermission) {
		if info, serr := os.Lstat(path); serr == nil {
			return notYours(dir, path, int(info.Sys().(*syscall.Stat_t).Uid), a)
		}
	}
	return err
}

// accountName is the name of uid, or the number when it has none.
func accountName(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
		return u.Username
	}
	return strconv.Itoa(uid)
}

// groupName is the name of uid's primary group (what chown user: means).
func groupName(uid int) string {
	u, err := user.LookupId(strconv.Itoa(uid))
	if err != nil {
		return strconv.Itoa(uid)
	}
	if g, err := user.LookupGroupId(u.Gid); err == nil {
		return g.Name
	}
	return u.Gid
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
			return &SetupError{fmt.Sprintf("DATA_DIR %s: the embedded PostgreSQL runs as user %s (PostgreSQL refuses root), and %s is closed to it: "+
				"chmod o+x %s, or set DATA_DIR elsewhere (such as /var/lib/membot), or run membot as an ordinary user", dir, a.name, d, d)}
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
func tryLock(path string, a *account) (owner bool, unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|noFollow, 0o600)
	if err != nil {
		return false, nil, deniedBy(filepath.Dir(path), path, a, err)
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
