package embeddedpg

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// The cluster's superuser and the bot's database.
const (
	userName = "membot"
	database = "membot"
	port     = 5432 // names the socket file only: no TCP listener is opened
)

// maxSocketPath is the longest unix socket path every system takes (macOS
// allows 104 bytes, Linux 108); a longer data directory gets its socket in
// a short temporary directory instead.
const maxSocketPath = 100

// SetupError is something about DATA_DIR or the account membot runs as
// that the operator must change: one line saying what is wrong and the
// command that fixes it.
type SetupError struct{ msg string }

func (e *SetupError) Error() string { return e.msg }

// Options say where the cluster lives.
type Options struct {
	Dir string // DATA_DIR; the cluster is its pgdata subdirectory
	Log *slog.Logger
}

// Server is a running embedded cluster. The process that holds the data
// directory's lock owns it: it started (or took over) the server and stops
// it in Stop. Another membot on the same directory (an admin command while
// the bot runs) only connects.
type Server struct {
	URL   string // a postgres:// URL over the unix socket
	Major int    // the PostgreSQL major version

	dir, pgdata string
	bin         Binaries
	log         *slog.Logger
	owner       bool
	started     bool // running, and this process stops it
	unlock      func()
	runAs       *account // nil unless membot runs as root
	tempSocket  string   // a socket directory of ours to remove at Stop
	password    string   // the superuser's, from DATA_DIR (read when first needed)
}

// Start starts the cluster in opt.Dir (creating it the first time), or
// finds it running, and returns once the bot's database accepts
// connections.
func Start(ctx context.Context, opt Options) (*Server, error) {
	dir, err := filepath.Abs(opt.Dir)
	if err != nil {
		return nil, fmt.Errorf("DATA_DIR %q: %w", opt.Dir, err)
	}
	// The directories above are opened to others (PostgreSQL may run as
	// another user, below); DATA_DIR itself is the server's user's alone.
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, fmt.Errorf("create DATA_DIR: %w", err)
	}
	s := &Server{dir: dir, pgdata: filepath.Join(dir, "pgdata"), log: opt.Log}
	if s.runAs, err = accountFor(); err != nil {
		return nil, err
	}
	if s.runAs != nil {
		s.log.Warn("membot runs as root; PostgreSQL refuses root, so the embedded database runs as user "+s.runAs.name+
			" (better: run membot as its own user, see docs/OPERATIONS.md)", "data_dir", dir)
		if err := s.runAs.reaches(dir); err != nil {
			return nil, err
		}
	}
	if err := prepareDir(dir, s.runAs); err != nil {
		return nil, err
	}
	if s.bin, err = Find(candidates(), s.dataVersion()); err != nil {
		return nil, err
	}
	s.Major = s.bin.Major
	s.owner, s.unlock, err = tryLock(filepath.Join(dir, "membot.lock"), s.runAs)
	if err != nil {
		return nil, err
	}
	if s.owner {
		err = s.startOrTakeOver(ctx)
	} else {
		s.log.Info("another membot runs the embedded PostgreSQL of DATA_DIR; connecting to it", "data_dir", dir)
		err = s.waitReady(ctx, 2*time.Minute)
	}
	if err == nil {
		err = s.createDatabase(ctx)
	}
	if err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// Stop stops the server if this process owns it, and lets the directory go.
func (s *Server) Stop() {
	if s.started {
		s.started = false
		out, err := s.pgCtl("stop", "-m", "fast", "-w", "-t", "60")
		if err != nil && s.running() {
			s.log.Error("stopping the embedded PostgreSQL failed", "err", err, "output", out)
		} else {
			s.log.Info("embedded PostgreSQL stopped", "data_dir", s.dir)
		}
	}
	if s.tempSocket != "" {
		os.RemoveAll(s.tempSocket)
	}
	if s.unlock != nil {
		s.unlock()
		s.unlock = nil
	}
}

// dataVersion is the major version that made the cluster (its PG_VERSION
// file), 0 when there is none yet.
func (s *Server) dataVersion() int {
	b, err := os.ReadFile(filepath.Join(s.pgdata, "PG_VERSION"))
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

// startOrTakeOver brings the owned cluster up: made the first time, taken
// over when a membot killed without stopping left it running, started
// otherwise.
func (s *Server) startOrTakeOver(ctx context.Context) error {
	made := s.dataVersion() == 0
	if made {
		if err := s.initdb(); err != nil {
			return err
		}
	}
	password, err := readPassword(s.dir, s.runAs)
	if err != nil {
		return err
	}
	s.password = password
	if password == "" || !s.hbaCurrent() {
		if password == "" {
			if password, err = newPassword(s.dir, s.runAs); err != nil {
				return err
			}
		}
		s.password = password
		if err := s.stopLeftServer(ctx); err != nil {
			return err
		}
		if err := s.requirePassword(password); err != nil {
			return err
		}
		if !made {
			s.log.Info("the embedded PostgreSQL now requires a password (DATA_DIR/"+passwordFile+") instead of trusting every local connection", "data_dir", s.dir)
		}
	}
	if s.ping(ctx) == nil {
		s.log.Info("taking over the embedded PostgreSQL a membot left running", "data_dir", s.dir)
		s.started = true
		return nil
	}
	if err := s.clearStalePid(ctx); err != nil {
		return err
	}
	if err := s.writeSettings(); err != nil {
		return err
	}
	if out, err := s.pgCtl("start", "-w", "-t", "300", "-l", filepath.Join(s.dir, "postgres.log")); err != nil {
		return fmt.Errorf("start the embedded PostgreSQL: %w: %s (see %s)", err, lastLines(out, 3), filepath.Join(s.dir, "postgres.log"))
	}
	s.started = true
	if err := s.waitReady(ctx, time.Minute); err != nil {
		return err
	}
	s.log.Info("embedded PostgreSQL started", "data_dir", s.dir, "bin", s.bin.Dir, "version", s.Major)
	return nil
}

// initdb makes the cluster, closed to every connection until
// requirePassword has set the password and the rules.
func (s *Server) initdb() error {
	if err := os.RemoveAll(s.pgdata); err != nil { // what an interrupted initdb left
		return fmt.Errorf("clear %s: %w", s.pgdata, err)
	}
	s.log.Info("creating the embedded PostgreSQL cluster (once)", "data_dir", s.dir, "bin", s.bin.Dir, "version", s.Major)
	out, err := s.command("initdb", "-D", s.pgdata, "-U", userName, "--auth=reject", "-E", "UTF8", "--no-locale").CombinedOutput()
	if err != nil {
		return fmt.Errorf("initdb: %w %s%s", err, lastLines(string(out), 3), s.runAs.hint(s.dir))
	}
	conf, err := os.OpenFile(filepath.Join(s.pgdata, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("initdb: %w", err)
	}
	defer conf.Close()
	_, err = conf.WriteString("\n# membot: where to listen, rewritten at every start\ninclude_if_exists = 'membot.conf'\n")
	return err
}

// socketDir is where the server's socket goes: DATA_DIR, or a private
// temporary directory when DATA_DIR's path is too long for a socket.
func (s *Server) socketDir() (string, error) {
	if len(s.dir)+len("/.s.PGSQL.5432") <= maxSocketPath {
		return s.dir, nil
	}
	dir, err := os.MkdirTemp("", "membot-pg-")
	if err != nil {
		return "", fmt.Errorf("a socket directory: %w", err)
	}
	if err := s.runAs.own(dir); err != nil {
		return "", err
	}
	s.tempSocket = dir
	return dir, nil
}

// writeSettings writes membot.conf: a unix socket only, no TCP.
func (s *Server) writeSettings() error {
	sock, err := s.socketDir()
	if err != nil {
		return err
	}
	conf := fmt.Sprintf("listen_addresses = ''\nport = %d\nunix_socket_directories = '%s'\nunix_socket_permissions = 0700\n",
		port, strings.ReplaceAll(sock, "'", "''"))
	path := filepath.Join(s.pgdata, "membot.conf")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return s.runAs.own(path)
}

// pidFile is what postmaster.pid says: the server's pid, port and socket
// directory.
type pidFile struct {
	pid    int
	port   int
	socket string
}

func (s *Server) readPidFile() (pidFile, error) {
	b, err := os.ReadFile(filepath.Join(s.pgdata, "postmaster.pid"))
	if err != nil {
		return pidFile{}, err
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) < 5 {
		return pidFile{}, errors.New("postmaster.pid is incomplete")
	}
	var f pidFile
	f.pid, _ = strconv.Atoi(strings.TrimSpace(lines[0]))
	f.port, _ = strconv.Atoi(strings.TrimSpace(lines[3]))
	f.socket = strings.TrimSpace(lines[4])
	if f.pid <= 0 || f.port <= 0 || f.socket == "" {
		return pidFile{}, errors.New("postmaster.pid is incomplete")
	}
	return f, nil
}

// clearStalePid removes a postmaster.pid no live server stands behind. A
// dead pid PostgreSQL handles itself; but after kill -9 or a reboot the
// pid may since belong to another program, and then PostgreSQL refuses to
// start ("lock file already exists"). A live PostgreSQL that does not
// answer yet (recovering) is waited for instead.
func (s *Server) clearStalePid(ctx context.Context) error {
	path := filepath.Join(s.pgdata, "postmaster.pid")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	if pid > 0 && alive(pid) && isPostgres(pid) {
		if err := s.waitReady(ctx, time.Minute); err != nil {
			return fmt.Errorf("a PostgreSQL (pid %d) holds %s but does not answer: stop it and start membot again: %w", pid, s.pgdata, err)
		}
		return nil
	}
	s.log.Warn("removing a stale postmaster.pid left by a PostgreSQL that was killed", "pid", pid, "file", path)
	return os.Remove(path)
}

// stopLeftServer stops a server a membot killed with -9 left running, so
// that its rules can change: pg_hba.conf and the password are set while
// no server runs.
func (s *Server) stopLeftServer(ctx context.Context) error {
	if err := s.clearStalePid(ctx); err != nil {
		return err
	}
	if _, err := s.readPidFile(); err != nil {
		return nil // none runs
	}
	s.log.Info("stopping the embedded PostgreSQL a membot left running, to restart it with a password", "data_dir", s.dir)
	if out, err := s.pgCtl("stop", "-m", "fast", "-w", "-t", "60"); err != nil {
		return fmt.Errorf("stop the embedded PostgreSQL: %w: %s", err, lastLines(out, 3))
	}
	return nil
}

// waitReady waits until the server named by postmaster.pid answers.
func (s *Server) waitReady(ctx context.Context, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		err := s.ping(ctx)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the embedded PostgreSQL in %s did not answer within %s: %w", s.pgdata, limit, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// ping connects to the maintenance database, setting URL on success.
func (s *Server) ping(ctx context.Context) error {
	f, err := s.readPidFile()
	if err != nil {
		return err
	}
	if s.password == "" {
		if s.password, err = readPassword(s.dir, s.runAs); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.urlOf(f, "postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	if err := conn.Ping(ctx); err != nil {
		return err
	}
	s.URL = s.urlOf(f, database)
	return nil
}

func (s *Server) running() bool { return s.ping(context.Background()) == nil }

func (s *Server) urlOf(f pidFile, db string) string {
	q := url.Values{"host": {f.socket}, "port": {strconv.Itoa(f.port)}, "sslmode": {"disable"}}
	return (&url.URL{Scheme: "postgres", User: url.UserPassword(userName, s.password), Path: "/" + db, RawQuery: q.Encode()}).String()
}

// createDatabase creates the bot's database the first time.
func (s *Server) createDatabase(ctx context.Context) error {
	f, err := s.readPidFile()
	if err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, s.urlOf(f, "postgres"))
	if err != nil {
		return fmt.Errorf("connect to the embedded PostgreSQL: %w", err)
	}
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, database).Scan(&exists); err != nil {
		return fmt.Errorf("look for the database: %w", err)
	}
	if exists {
		return nil
	}
	if _, err := conn.Exec(ctx, `CREATE DATABASE `+database); err != nil {
		var exists bool // another membot created it a moment ago
		if conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, database).Scan(&exists) == nil && exists {
			return nil
		}
		return fmt.Errorf("create the database: %w", err)
	}
	return nil
}

// pgCtl runs pg_ctl on the cluster and returns what it printed.
func (s *Server) pgCtl(args ...string) (string, error) {
	out, err := s.command("pg_ctl", append([]string{"-D", s.pgdata}, args...)...).CombinedOutput()
	return string(out), err
}

// command runs one of the binaries, as the account PostgreSQL runs as,
// with an environment of its own: the bot's secrets stay out of it.
func (s *Server) command(program string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(s.bin.Dir, program+exeSuffix()), args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "LC_ALL=C", "TZ=UTC"}
	cmd.Dir = s.dir
	s.runAs.apply(cmd)
	return cmd
}

// lastLines is the end of a program's output, on one line.
func lastLines(out string, n int) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.Join(lines, " / ")
}
