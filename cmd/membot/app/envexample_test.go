package app

import (
	"maps"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// notSettings are variables the settings are read with rather than
// settings: which file to read them from, and where the user's data
// directory is (DATA_DIR's default).
var notSettings = map[string]bool{"ENV_FILE": true, "HOME": true, "XDG_DATA_HOME": true}

// composeSettings are in .env.example for docker-compose.yml, not for the
// program.
var composeSettings = map[string]bool{"POSTGRES_PASSWORD": true}

// requiredSettings are the two a copied .env.example is filled in with;
// every other is shown commented out, with its default.
var requiredSettings = map[string]bool{"TELEGRAM_BOT_TOKEN": true, "OPENAI_API_KEY": true}

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
		if !read[name] && !composeSettings[name] {
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
	example := slices.DeleteFunc(envExampleNames(t), func(name string) bool { return composeSettings[name] })
	if !slices.Equal(table, example) {
		t.Errorf("the table of settings (config.go) and .env.example list them in different orders:\ntable:        %v\n.env.example: %v", table, example)
	}
}

// A copied .env.example changes nothing but the two tokens: every other
// setting is commented out, showing its default ("# NAME=default"), so a
// default changed in a later release reaches an existing .env; and what a
// line shows is the default: set to it, the settings are the defaults.
func TestEnvExampleShowsTheDefaultsCommentedOut(t *testing.T) {
	t.Parallel()
	base := map[string]string{"ENV_FILE": "/dev/null", "TELEGRAM_BOT_TOKEN": "1:a", "OPENAI_API_KEY": "k", "HOME": "/home/x"}
	load := func(env map[string]string) *Config {
		t.Helper()
		cfg, err := LoadConfig(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
		if err != nil {
			t.Fatalf("%v: %v", env, err)
		}
		return cfg
	}
	defaults := load(base)
	defaults.seen = nil // how each was read (set or fallen back to) differs by definition
	shown := 0
	for _, line := range envExampleLines(t) {
		if m := activeSetting.FindStringSubmatch(line); m != nil && !requiredSettings[m[1]] {
			t.Errorf(".env.example sets %s: a copy would freeze it; show it commented out (# %s)", m[1], line)
		}
		m := shownDefault.FindStringSubmatch(line)
		if m == nil || composeSettings[m[1]] {
			continue
		}
		shown++
		env := maps.Clone(base)
		env[m[1]] = m[2]
		got := load(env)
		if got.seen = nil; !reflect.DeepEqual(got, defaults) {
			t.Errorf(".env.example shows %q, which is not the default", line)
		}
	}
	if shown < 50 {
		t.Errorf("only %d defaults shown in .env.example", shown)
	}
}

var (
	activeSetting = regexp.MustCompile(`^([A-Z][A-Z0-9_]*)=`)
	shownDefault  = regexp.MustCompile(`^# ([A-Z][A-Z0-9_]*)=(.*)$`)
	anySetting    = regexp.MustCompile(`^(?:# ?)?([A-Z][A-Z0-9_]*)=`)
)

// envExampleNames are the variables .env.example sets, shows with their
// default (# NAME=default) or with an example (#NAME=value), in its order;
// examples inside comments ("#   MODELS=...") are not.
func envExampleNames(t *testing.T) []string {
	t.Helper()
	var names []string
	for _, line := range envExampleLines(t) {
		if m := anySetting.FindStringSubmatch(line); m != nil {
			names = append(names, m[1])
		}
	}
	return names
}

func envExampleLines(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../../.env.example")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(string(b), "\n")
}
