package embeddedpg

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Who may log in: nobody without the password, which membot keeps in
// DATA_DIR. The socket's directory already shuts out other users; the
// password also shuts out the one PostgreSQL runs as when that is not
// membot's (root's membot runs it as the system's postgres user, whose
// other clusters' superusers can run programs as that user).

// passwordFile holds the password of the cluster's superuser, mode 0600,
// owned by the user membot runs as, as a libpq password file (one line,
// passPrefix and the password), so that the operator's psql and pg_dump
// use it as PGPASSFILE.
const passwordFile = "pgpass"

// passPrefix matches any host, port and database for the superuser.
const passPrefix = "*:*:*:" + userName + ":"

// hba is the whole pg_hba.conf: unix socket connections with the password.
const hba = `# membot: rewritten when it differs. Only the unix socket (no TCP port is
# opened), and only with the password in DATA_DIR/` + passwordFile + `.
local all all scram-sha-256
`

// maxPasswordFile bounds what is read of the password file.
const maxPasswordFile = 256

// readPassword reads DATA_DIR's password; absent, it is "".
func readPassword(dir string, a *account) (string, error) {
	path := filepath.Join(dir, passwordFile)
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", deniedBy(dir, path, a, err)
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return "", &SetupError{fmt.Sprintf("%s is not a file: remove it, and membot makes a new password", path)}
	} else if info.Mode().Perm()&0o077 != 0 {
		if err := f.Chmod(0o600); err != nil {
			return "", fmt.Errorf("the database password: %w", err)
		}
	}
	b, err := io.ReadAll(io.LimitReader(f, maxPasswordFile))
	if err != nil {
		return "", fmt.Errorf("the database password: %w", err)
	}
	pass, ok := strings.CutPrefix(strings.TrimSpace(string(b)), passPrefix)
	if !ok || pass == "" || strings.ContainsAny(pass, " \t\n:'\\") || len(b) == maxPasswordFile {
		return "", &SetupError{fmt.Sprintf("%s is damaged: remove it, and membot makes a new password", path)}
	}
	return pass, nil
}

// newPassword makes DATA_DIR's password: 32 random bytes, written once
// (O_EXCL) with mode 0600.
func newPassword(dir string, a *account) (string, error) {
	key := make([]byte, 32)
	rand.Read(key)
	pass := base64.RawURLEncoding.EncodeToString(key)
	path := filepath.Join(dir, passwordFile)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, 0o600)
	if err != nil {
		return "", deniedBy(dir, dir, a, err)
	}
	if _, err := f.WriteString(passPrefix + pass + "\n"); err != nil {
		f.Close()
		return "", fmt.Errorf("the database password: %w", err)
	}
	return pass, f.Close()
}

// scramVerifier is what PostgreSQL stores for a SCRAM-SHA-256 password
// (RFC 5803's format, as ALTER ROLE ... PASSWORD accepts it ready made):
// the password itself never reaches the server or its logs.
func scramVerifier(password string) string {
	const iterations = 4096 // PostgreSQL's scram_iterations default
	salt := make([]byte, 16)
	rand.Read(salt)
	salted, _ := pbkdf2.Key(sha256.New, password, salt, iterations, sha256.Size)
	mac := func(key []byte, msg string) []byte {
		h := hmac.New(sha256.New, key)
		h.Write([]byte(msg))
		return h.Sum(nil)
	}
	stored := sha256.Sum256(mac(salted, "Client Key"))
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("SCRAM-SHA-256$%d:%s$%s:%s", iterations, b64(salt), b64(stored[:]), b64(mac(salted, "Server Key")))
}

// hbaCurrent tells whether pg_hba.conf is membot's.
func (s *Server) hbaCurrent() bool {
	b, err := os.ReadFile(filepath.Join(s.pgdata, "pg_hba.conf"))
	return err == nil && string(b) == hba
}

// requirePassword sets the superuser's password and then writes
// pg_hba.conf, the server being stopped: a cluster made with trust (as
// membot once did) or with reject (initdb, below) is brought to the
// password. The password is set in single-user mode, which no client
// reaches; pg_hba.conf comes last, so an interruption leaves the old rules
// to be replaced at the next start.
func (s *Server) requirePassword(password string) error {
	cmd := s.command("postgres", "--single", "-D", s.pgdata, "-c", "exit_on_error=on", "postgres")
	cmd.Stdin = strings.NewReader("ALTER ROLE " + userName + " PASSWORD '" + scramVerifier(password) + "'\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("set the embedded PostgreSQL's password: %w: %s", err, problems(string(out)))
	}
	path := filepath.Join(s.pgdata, "pg_hba.conf")
	if err := os.WriteFile(path+".new", []byte(hba), 0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := s.runAs.own(path + ".new"); err != nil {
		return err
	}
	if err := os.Rename(path+".new", path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// problems are the error lines of a PostgreSQL program's output, without
// the statements they quote.
func problems(out string) string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "ERROR:") || strings.Contains(l, "FATAL:") || strings.Contains(l, "PANIC:") {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	if len(lines) == 0 {
		return lastLines(out, 3)
	}
	return strings.Join(lines, " / ")
}
