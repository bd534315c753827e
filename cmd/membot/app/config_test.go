package app

import (
	"slices"
	"testing"

	"github.com/membot/membot/agent"
)

// A setting several packages need reaches each one's Config at load:
// MODELS gives the agent each model's name and capabilities (the
// wiring keeps the base URLs, of which it makes the servers), and
// TIMEZONE and HISTORY_LIMIT reach the background work as the agent.
func TestLoadConfigGivesEachPackageItsSettings(t *testing.T) {
	t.Parallel()
	env := map[string]string{"ENV_FILE": "/dev/null", "TELEGRAM_BOT_TOKEN": "123456:probe-token",
		"OPENAI_BASE_URL": "http://chat.local/v1", "MODELS": "gemma3 http://ollama.local:11434/v1 no-tools",
		"TIMEZONE": "Asia/Tokyo", "HISTORY_LIMIT": "12"}
	cfg, err := LoadConfig(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	want := []agent.Model{{Name: "gpt-4o-mini"}, {Name: "gemma3", Caps: agent.Capabilities{NoTools: true}}}
	if !slices.Equal(cfg.Agent.Models, want) {
		t.Errorf("the agent's models = %+v, want %+v", cfg.Agent.Models, want)
	}
	var urls []string
	for _, m := range cfg.LLM.Models {
		urls = append(urls, m.BaseURL)
	}
	if !slices.Equal(urls, []string{"http://chat.local/v1", "http://ollama.local:11434/v1"}) {
		t.Errorf("the models' servers = %v", urls)
	}
	if cfg.Memory.HistoryLimit != 12 || cfg.Agent.HistoryLimit != 12 {
		t.Errorf("HISTORY_LIMIT: the agent's %d, the memory work's %d; want 12", cfg.Agent.HistoryLimit, cfg.Memory.HistoryLimit)
	}
	for name, loc := range map[string]string{"agent": cfg.Agent.Location.String(), "memory": cfg.Memory.Location.String(),
		"images": cfg.Images.Location.String(), "reminders": cfg.Reminders.Location.String()} {
		if loc != "Asia/Tokyo" {
			t.Errorf("the %s' zone = %s, want Asia/Tokyo", name, loc)
		}
	}
}
