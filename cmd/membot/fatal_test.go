package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/membot/membot/internal/testing/pgtest"
	"github.com/membot/membot/internal/testing/testkit"
)

// The error that stops membot is said once ("apply migrations: apply
// migrations: …" said it twice), and with LOG_FORMAT=json it is a JSON
// log line like every other, not plain text among them.
func TestAFatalErrorIsOneLineInTheLogsFormat(t *testing.T) {
	t.Parallel()
	u, err := url.Parse(pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/membot_no_such_database"
	for _, format := range []string{"json", "text"} {
		env := map[string]string{"ENV_FILE": "/dev/null", "LOG_FORMAT": format,
			"TELEGRAM_BOT_TOKEN": testkit.Token, "DATABASE_URL": u.String()}
		var logs bytes.Buffer
		runErr := run(context.Background(), []string{"membot"}, testkit.Lookup(env), &logs, &logs)
		if runErr == nil {
			t.Fatal("membot started on a database that does not exist")
		}
		var stderr bytes.Buffer
		if code := fatal(&stderr, testkit.Lookup(env), runErr); code != 1 {
			t.Errorf("%s: exit code %d, want 1", format, code)
		}
		out := stderr.String()
		if strings.Count(out, "apply migrations") != 1 || !strings.Contains(out, "membot_no_such_database") || strings.Count(out, "\n") != 1 {
			t.Errorf("%s: the fatal error reads %q", format, out)
		}
		if format == "json" {
			var line struct{ Level, Msg, Err string }
			if err := json.Unmarshal([]byte(out), &line); err != nil || line.Level != "ERROR" || line.Msg != "membot stopped" {
				t.Errorf("in JSON mode the fatal error is not a JSON log line: %q (%v)", out, err)
			}
		} else if !strings.HasPrefix(out, "membot: apply migrations: ") {
			t.Errorf("in text mode the fatal error reads %q", out)
		}
	}
	env := map[string]string{"ENV_FILE": "/dev/null", "LOG_FORMAT": "json"} // no token: a bad setting, exit 2
	var stderr bytes.Buffer
	if code := fatal(&stderr, testkit.Lookup(env), run(context.Background(), []string{"membot"}, testkit.Lookup(env), &stderr, &stderr)); code != 2 ||
		!strings.Contains(stderr.String(), `"err":"TELEGRAM_BOT_TOKEN: is required`) {
		t.Errorf("a missing setting: exit %d, %q", code, stderr.String())
	}
}
