package app

import (
	"bufio"
	"os"
	"regexp"
	"slices"
	"sync"
	"testing"
)

// notSettings are variables the settings are read with rather than
// settings: which file to read them from, and where the user's data
// directory is (DATA_DIR's default).
var notSettings = map[string]bool{"ENV_FILE": true, "HOME": true, "XDG_DATA_HOME": true}

// Every variable the program reads is documented in .env.example, and
// every variable there is read: the settings are recorded as LoadConfig
// looks them up, in webhook mode so that its settings are read too.
func TestEnvExampleListsEverySetting(t *testing.T) {
	t.Parallel()
	documented := envExampleNames(t)

	var mu sync.Mutex
	read := map[string]bool{}
	env := map[string]string{"ENV_FILE": "/dev/null", "TELEGRAM_BOT_TOKEN": "1:a", "DATABASE_URL": "postgres://x@localhost/db",
		"MODE": "webhook", "WEBHOOK_URL": "https://bot.example.com/hook"}
	getenv := func(k string) (string, bool) {
		mu.Lock()
		read[k] = true
		mu.Unlock()
		v, ok := env[k]
		return v, ok
	}
	if _, err := LoadConfig(getenv); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadAdminConfig(getenv); err != nil {
		t.Fatal(err)
	}
	LogFormat(getenv)

	var names []string
	for name := range read {
		if !notSettings[name] {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	if len(names) < 60 {
		t.Fatalf("only %d settings were read: %v", len(names), names)
	}
	for _, name := range names {
		if !documented[name] {
			t.Errorf("%s is read but not in .env.example", name)
		}
	}
	for name := range documented {
		if !read[name] {
			t.Errorf(".env.example has %s, which nothing reads", name)
		}
	}
}

// envExampleNames are the variables .env.example sets, or shows commented
// out (#NAME=...); examples inside comments ("#   MODELS=...") are not.
func envExampleNames(t *testing.T) map[string]bool {
	t.Helper()
	f, err := os.Open("../../../.env.example")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	setting := regexp.MustCompile(`^#?([A-Z][A-Z0-9_]*)=`)
	names := map[string]bool{}
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		if m := setting.FindStringSubmatch(lines.Text()); m != nil {
			if names[m[1]] {
				t.Errorf(".env.example has %s twice", m[1])
			}
			names[m[1]] = true
		}
	}
	if err := lines.Err(); err != nil {
		t.Fatal(err)
	}
	return names
}
