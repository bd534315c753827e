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
	documented := map[string]bool{}
	for _, name := range envExampleNames(t) {
		if documented[name] {
			t.Errorf(".env.example has %s twice", name)
		}
		documented[name] = true
	}

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

// The table of settings lists them in .env.example's order, so the two
// read alike.
func TestSettingsTableFollowsEnvExample(t *testing.T) {
	t.Parallel()
	var table []string
	for _, s := range defaultConfig().settings() {
		table = append(table, s.name)
	}
	if example := envExampleNames(t); !slices.Equal(table, example) {
		t.Errorf("the table of settings (config.go) and .env.example list them in different orders:\ntable:        %v\n.env.example: %v", table, example)
	}
}

// envExampleNames are the variables .env.example sets, or shows commented
// out (#NAME=...), in its order; examples inside comments ("#   MODELS=...")
// are not.
func envExampleNames(t *testing.T) []string {
	t.Helper()
	f, err := os.Open("../../../.env.example")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	setting := regexp.MustCompile(`^#?([A-Z][A-Z0-9_]*)=`)
	var names []string
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		if m := setting.FindStringSubmatch(lines.Text()); m != nil {
			names = append(names, m[1])
		}
	}
	if err := lines.Err(); err != nil {
		t.Fatal(err)
	}
	return names
}
