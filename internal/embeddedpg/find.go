// Package embeddedpg runs a private PostgreSQL for membot when no
// DATABASE_URL is given: a cluster of its own in a data directory, started
// from the PostgreSQL binaries found on the machine, reached over a unix
// socket in that directory, and stopped when membot stops.
package embeddedpg

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// programs are the binaries a bin directory must hold to be used.
var programs = []string{"initdb", "pg_ctl", "postgres"}

// NotFoundError says that no PostgreSQL binaries were found, and what to
// install (or set) instead, in one line for this operating system.
type NotFoundError struct{ Searched []string }

func (e *NotFoundError) Error() string {
	return "no PostgreSQL binaries (initdb, pg_ctl, postgres) found in PATH or the usual places: " + InstallHint(runtime.GOOS) +
		", or set DATABASE_URL to a PostgreSQL server of yours"
}

// InstallHint is what to install on goos for membot to find PostgreSQL.
func InstallHint(goos string) string {
	switch goos {
	case "darwin":
		return "install it with `brew install postgresql@17` (or Postgres.app)"
	case "linux":
		return "install it with `sudo apt install postgresql` (Debian, Ubuntu), `sudo dnf install postgresql-server` (Fedora, RHEL) " +
			"or `sudo apk add postgresql` (Alpine)"
	case "freebsd":
		return "install it with `pkg install postgresql17-server`"
	}
	return "install PostgreSQL and put its bin directory in PATH"
}

// candidates are the directories searched for the binaries, in order:
// PATH, pg_config --bindir, then where packages put them (Debian's
// versioned directories, the PGDG RPMs, a source build, Homebrew,
// Postgres.app), newest version first.
func candidates() []string {
	var dirs []string
	if p, err := exec.LookPath("initdb"); err == nil {
		dirs = append(dirs, filepath.Dir(p))
		if real, err := filepath.EvalSymlinks(p); err == nil {
			dirs = append(dirs, filepath.Dir(real))
		}
	}
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		dirs = append(dirs, strings.TrimSpace(string(out)))
	}
	for _, pattern := range []string{
		"/usr/lib/postgresql/*/bin", "/usr/pgsql-*/bin", "/usr/local/pgsql/bin",
		"/opt/homebrew/opt/postgresql@*/bin", "/opt/homebrew/bin", "/usr/local/opt/postgresql@*/bin",
		"/usr/local/bin", "/Applications/Postgres.app/Contents/Versions/*/bin", "/usr/local/lib/postgresql*/bin",
	} {
		matches, _ := filepath.Glob(pattern)
		slices.SortFunc(matches, func(a, b string) int { return versionIn(b) - versionIn(a) })
		dirs = append(dirs, matches...)
	}
	return dirs
}

var digits = regexp.MustCompile(`\d+`)

// versionIn is the first number in a path such as /usr/lib/postgresql/15/bin.
func versionIn(path string) int {
	n, _ := strconv.Atoi(digits.FindString(path))
	return n
}

// Binaries is a directory with initdb, pg_ctl and postgres, and their
// major version.
type Binaries struct {
	Dir   string
	Major int
}

// Find returns the binaries to run a cluster with. want is the major
// version an existing cluster was made with (0 for a new one): data files
// work only with the major version that wrote them.
func Find(dirs []string, want int) (Binaries, error) {
	var found []Binaries
	for _, dir := range dirs {
		if !hasPrograms(dir) || slices.ContainsFunc(found, func(b Binaries) bool { return b.Dir == dir }) {
			continue
		}
		major, err := majorVersion(dir)
		if err != nil {
			continue
		}
		if want == 0 || major == want {
			return Binaries{Dir: dir, Major: major}, nil
		}
		found = append(found, Binaries{Dir: dir, Major: major})
	}
	if len(found) == 0 {
		return Binaries{}, &NotFoundError{Searched: dirs}
	}
	return Binaries{}, fmt.Errorf("the embedded database was made by PostgreSQL %d, and only PostgreSQL %d is installed (%s): "+
		"install PostgreSQL %d next to it, or move the data over with pg_upgrade", want, found[0].Major, found[0].Dir, want)
}

func hasPrograms(dir string) bool {
	for _, p := range programs {
		info, err := os.Stat(filepath.Join(dir, p+exeSuffix()))
		if err != nil || info.IsDir() || info.Mode()&0o111 == 0 {
			return false
		}
	}
	return true
}

func exeSuffix() string {
	if runtime.GOOS == "windows" {
		return ".exe"
	}
	return ""
}

var versionLine = regexp.MustCompile(`\(PostgreSQL\) (\d+)`)

// majorVersion asks postgres --version: "postgres (PostgreSQL) 15.14 (Debian ...)".
func majorVersion(dir string) (int, error) {
	out, err := exec.Command(filepath.Join(dir, "postgres"+exeSuffix()), "--version").Output()
	if err != nil {
		return 0, fmt.Errorf("postgres --version: %w", err)
	}
	m := versionLine.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("postgres --version said %q", strings.TrimSpace(string(out)))
	}
	return strconv.Atoi(string(m[1]))
}
