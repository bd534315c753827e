package app

import (
	"testing"

	"github.com/membot/membot/internal/redact"
)

// The settings whose whole value a start-up error hides
// (secretSettings, by name) are the ones the running bot hides
// (Config.Secrets): each setting is given a value of its own, and
// whichever the running bot's Secrets take out must be in the list, and
// only those.
func TestStartUpHidesTheSecretsTheRunningBotHides(t *testing.T) {
	t.Parallel()
	for _, s := range defaultConfig().settings() {
		value := "probe-value-of-" + s.name
		env := map[string]string{"ENV_FILE": "/dev/null", "TELEGRAM_BOT_TOKEN": "123456:probe-token", s.name: value}
		cfg, err := LoadConfig(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
		if err != nil {
			continue // not a setting that takes any text
		}
		hidden := cfg.Secrets().String(value) == redact.Mark
		if listed := isSecret(s.name); hidden != listed {
			t.Errorf("%s: the running bot hides it: %v; start-up errors hide it: %v", s.name, hidden, listed)
		}
	}
}
