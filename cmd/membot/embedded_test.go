package main

import (
	"github.com/membot/membot/internal/testing/wait"

	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/telegramfake"
)

// The quick start without Docker: the built binary given only the two
// tokens (and, here, the fakes' URLs) and a DATA_DIR runs PostgreSQL
// itself, answers, stops it when stopped, and after a restart — and after
// kill -9 — still has the conversation.
func TestTheBinaryRunsOnItsOwnPostgreSQL(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	tg, llm := telegramfake.New(testToken), openaifake.New()
	t.Cleanup(tg.Close)
	t.Cleanup(llm.Close)
	dataDir := reachableTempDir(t)
	env := []string{"PATH=" + os.Getenv("PATH"), "TELEGRAM_BOT_TOKEN=" + testToken, "OPENAI_API_KEY=sk-test",
		"TELEGRAM_API_URL=" + tg.URL(), "OPENAI_BASE_URL=" + llm.URL(), "DATA_DIR=" + dataDir, "WEB_ADDR=", "ACCESS=open"}

	// runOnce starts membot, has it answer text and stops it with stop.
	runOnce := func(text string, stop syscall.Signal) string {
		t.Helper()
		var logs syncBuffer
		cmd := startBinary(t, bin, env, &logs)
		awaitAnswer(t, tg, text, &logs)
		cmd.Process.Signal(stop)
		if err := cmd.Wait(); err != nil && stop != syscall.SIGKILL {
			t.Fatalf("membot exited with %v; logs:\n%s", err, logs.String())
		}
		return logs.String()
	}
	pidFile := filepath.Join(dataDir, "pgdata", "postmaster.pid")

	logs := runOnce("my name is Jane", syscall.SIGTERM)
	if !strings.Contains(logs, "embedded PostgreSQL started") || !strings.Contains(logs, "embedded PostgreSQL stopped") {
		t.Fatalf("the first run did not start and stop its PostgreSQL:\n%s", logs)
	}
	// One line for the migrations, not one each.
	if n := len(regexp.MustCompile(`(?m)msg="applied \d+ migrations \(00001\.\.\d{5}\)"$`).FindAllString(logs, -1)); n != 1 ||
		strings.Count(logs, "migration") != 1 {
		t.Fatalf("the first run did not say in one line that it applied the migrations:\n%s", logs)
	}
	if _, err := os.Stat(pidFile); !os.IsNotExist(err) {
		t.Fatalf("PostgreSQL still runs after membot stopped (postmaster.pid: %v)", err)
	}

	// Killed, membot leaves its PostgreSQL running; the next start takes it
	// over and stops it when it stops.
	runOnce("what is my name?", syscall.SIGKILL)
	if _, err := os.Stat(pidFile); err != nil {
		t.Fatalf("PostgreSQL did not outlive the killed membot: %v", err)
	}
	logs = runOnce("and now?", syscall.SIGTERM)
	if !strings.Contains(logs, "taking over the embedded PostgreSQL") {
		t.Errorf("the start after kill -9 did not take the running PostgreSQL over:\n%s", logs)
	}
	if _, err := os.Stat(pidFile); !os.IsNotExist(err) {
		t.Fatalf("PostgreSQL still runs after the membot that took it over stopped (postmaster.pid: %v)", err)
	}
	if strings.Contains(logs, "creating the embedded PostgreSQL cluster") || strings.Contains(logs, "applied") {
		t.Errorf("the second run made the database anew:\n%s", logs)
	}
	reqs := llm.Requests()
	last := reqs[len(reqs)-1]
	if !slices.ContainsFunc(last.Messages, func(m openai.ChatCompletionMessage) bool { return strings.Contains(m.Content, "my name is Jane") }) {
		t.Fatalf("after the restart the model did not see the earlier conversation: %+v", last.Messages)
	}
}

// awaitAnswer has jane send text and waits for the bot's echo.
func awaitAnswer(t *testing.T, tg *telegramfake.Server, text string, logs *syncBuffer) {
	t.Helper()
	tg.SendText(jane, text)
	want := "echo: " + text
	answered := func(m telegramfake.Message) bool { return m.Text == want }
	if !wait.Until(20*time.Millisecond, func() bool { return slices.ContainsFunc(tg.Messages(jane.ID), answered) }) {
		t.Fatalf("no answer %q within %s; logs:\n%s", want, wait.Timeout(), logs.String())
	}
}

// reachableTempDir is a DATA_DIR for a test. As root the embedded server
// runs as user postgres, which must pass through the test's directories.
func reachableTempDir(t *testing.T) string {
	t.Helper()
	base := t.TempDir()
	if os.Geteuid() == 0 {
		openToOthers(t, base)
	}
	return filepath.Join(base, "data")
}

// openToOthers lets other users through path and the test's directories
// above it.
func openToOthers(t *testing.T, path string) {
	t.Helper()
	for d := path; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}
