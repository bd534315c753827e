package main

import (
	"errors"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/osuser"
	"github.com/membot/membot/internal/testing/telegramfake"
)

// The built binary with DATABASE_URL unset, run as root (PostgreSQL then
// runs as postgres) and as an ordinary user (nobody): a DATA_DIR made
// beforehand with a plain mkdir (0755) is closed to 0700 and given to the
// server's user, the bot answers, and no other user logs in to its
// database: not another local user, not the postgres account, not root
// without the password.
func TestTheBinaryKeepsItsDatabaseToItself(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	openToOthers(t, filepath.Dir(bin))
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	for _, runner := range []string{me.Username, "nobody"} {
		t.Run("as "+runner, func(t *testing.T) {
			t.Parallel()
			if runner != me.Username {
				osuser.Require(t)
			}
			tg, llm := telegramfake.New(testToken), openaifake.New()
			t.Cleanup(tg.Close)
			t.Cleanup(llm.Close)
			dataDir := reachableTempDir(t)
			if err := os.Mkdir(dataDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dataDir, 0o755); err != nil {
				t.Fatal(err)
			}
			server, others := runner, []string{"nobody", "postgres"}
			if runner == "root" {
				server, others = "postgres", []string{"nobody", "postgres"}
			} else if runner == "nobody" {
				others = []string{"postgres", "root"}
				uid, gid := osuser.IDs(t, "nobody")
				if err := os.Chown(dataDir, uid, gid); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command(bin)
			if runner != me.Username {
				cmd = osuser.Command(t, runner, bin)
			}
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "TELEGRAM_BOT_TOKEN=" + testToken, "OPENAI_API_KEY=sk-test",
				"TELEGRAM_API_URL=" + tg.URL(), "OPENAI_BASE_URL=" + llm.URL(), "DATA_DIR=" + dataDir, "ENV_FILE=/dev/null", "WEB_ADDR=", "ACCESS=open"}
			var logs syncBuffer
			startCommand(t, cmd, &logs)
			awaitAnswer(t, tg, "hello", &logs)
			if runner == "root" && !strings.Contains(logs.String(), "runs as user postgres") {
				t.Errorf("run as root, membot does not say PostgreSQL runs as postgres:\n%s", logs.String())
			}

			info, err := os.Stat(dataDir)
			if err != nil {
				t.Fatal(err)
			}
			if uid, _ := osuser.IDs(t, server); info.Mode().Perm() != 0o700 || int(info.Sys().(*syscall.Stat_t).Uid) != uid {
				t.Errorf("DATA_DIR is %04o, uid %d; want 0700, %s's", info.Mode().Perm(), info.Sys().(*syscall.Stat_t).Uid, server)
			}
			osuser.Require(t)
			for _, other := range others {
				out, err := osuser.Psql(t, other, dataDir, "membot", "")
				if err == nil || !strings.Contains(out, "Permission denied") && !strings.Contains(out, "no password supplied") {
					t.Errorf("%s logged in to the database of membot run as %s (or failed for another reason): %v: %s", other, runner, err, out)
				}
			}

			cmd.Process.Signal(syscall.SIGTERM)
			if err := cmd.Wait(); err != nil {
				t.Fatalf("membot exited with %v; logs:\n%s", err, logs.String())
			}
		})
	}
}

// A first run as root leaves DATA_DIR to postgres; the service user's run
// after it stops with one line naming the chown that hands DATA_DIR over,
// and exit code 2 (a setting to fix); after that chown it runs.
func TestARunAsRootThenAsTheServiceUser(t *testing.T) {
	t.Parallel()
	osuser.Require(t)
	bin := buildBinary(t)
	openToOthers(t, filepath.Dir(bin))
	dataDir := reachableTempDir(t)
	migrate := func(as string) (string, int) {
		t.Helper()
		cmd := osuser.Command(t, as, bin, "migrate")
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "DATA_DIR=" + dataDir, "ENV_FILE=/dev/null", "WEB_ADDR=", "ACCESS=open"}
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return string(out), exit.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return string(out), 0
	}
	if out, code := migrate("root"); code != 0 {
		t.Fatalf("as root: exit %d: %s", code, out)
	}

	out, code := migrate("nobody")
	nobody, err := user.Lookup("nobody")
	if err != nil {
		t.Fatal(err)
	}
	group, err := user.LookupGroupId(nobody.Gid)
	if err != nil {
		t.Fatal(err)
	}
	fix := "sudo chown -R nobody:" + group.Name + " " + dataDir
	if code != 2 || strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, "membot: ") || !strings.HasSuffix(strings.TrimSpace(out), fix) {
		t.Fatalf("as nobody after root: exit %d, %q; want exit 2 and one line ending in %q", code, out, fix)
	}
	chown := strings.Fields(strings.TrimPrefix(fix, "sudo "))
	if out, err := exec.Command(chown[0], chown[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v: %s", fix, err, out)
	}
	if out, code := migrate("nobody"); code != 0 || !strings.Contains(out, "up to date") {
		t.Fatalf("as nobody after the chown: exit %d: %s", code, out)
	}
}
