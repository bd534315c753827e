package main

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membot/membot/internal/testing/testkit"
)

func TestIDListsAcceptCommasAndSpaces(t *testing.T) {
	t.Parallel()
	env := map[string]string{"ENV_FILE": "/dev/null", "TELEGRAM_BOT_TOKEN": "1:a", "DATABASE_URL": "postgres://x@localhost/db",
		"ALLOWED_USER_IDS": " 101, 102 ;103 ", "ALLOWED_CHAT_IDS": "-1001234567890", "ADMIN_USER_IDS": "101"}
	cfg, err := loadConfig(testkit.Lookup(env))
	if err != nil {
		t.Fatal(err)
	}
	if want := map[int64]bool{101: true, 102: true, 103: true}; !maps.Equal(cfg.Bot.Access.AllowedUsers, want) {
		t.Errorf("ALLOWED_USER_IDS = %v", cfg.Bot.Access.AllowedUsers)
	}
	if !cfg.Bot.Access.AllowedChats[-1001234567890] || !cfg.Bot.Access.Admins[101] || cfg.Intake.Mode != "polling" || cfg.Metrics.Addr != "" {
		t.Errorf("config = %+v", cfg)
	}
}

func TestBadConfigurationStopsWithOneLine(t *testing.T) {
	t.Parallel()
	cases := map[string]map[string]string{
		"TELEGRAM_BOT_TOKEN": {"DATABASE_URL": "postgres://x@localhost/db"},
		"DATABASE_URL":       {"TELEGRAM_BOT_TOKEN": "1:a", "DATABASE_URL": "not a url"},
		"HISTORY_LIMIT":      {"TELEGRAM_BOT_TOKEN": "1:a", "DATABASE_URL": "postgres://x@localhost/db", "HISTORY_LIMIT": "many"},
		"TIMEZONE":           {"TELEGRAM_BOT_TOKEN": "1:a", "DATABASE_URL": "postgres://x@localhost/db", "TIMEZONE": "Mars/Base"},
		"OPENAI_BASE_URL":    {"TELEGRAM_BOT_TOKEN": "1:a", "DATABASE_URL": "postgres://x@localhost/db", "OPENAI_BASE_URL": "localhost:11434"},
		"MODE":               {"TELEGRAM_BOT_TOKEN": "1:a", "DATABASE_URL": "postgres://x@localhost/db", "MODE": "push"},
		"WEBHOOK_URL":        {"TELEGRAM_BOT_TOKEN": "1:a", "DATABASE_URL": "postgres://x@localhost/db", "MODE": "webhook"},
		"WEBHOOK_SECRET": {"TELEGRAM_BOT_TOKEN": "1:a", "DATABASE_URL": "postgres://x@localhost/db", "MODE": "webhook",
			"WEBHOOK_URL": "https://bot.example.com/hook", "WEBHOOK_SECRET": "has spaces"},
		"WEBHOOK_TLS_CERT": {"TELEGRAM_BOT_TOKEN": "1:a", "DATABASE_URL": "postgres://x@localhost/db", "MODE": "webhook",
			"WEBHOOK_URL": "https://bot.example.com/hook", "WEBHOOK_TLS_KEY": "/etc/key.pem"},
		"METRICS_ADDR":            {"TELEGRAM_BOT_TOKEN": "1:a", "DATABASE_URL": "postgres://x@localhost/db", "METRICS_ADDR": "9090"},
		"ALLOWED_USER_IDS":        {"TELEGRAM_BOT_TOKEN": "1:a", "DATABASE_URL": "postgres://x@localhost/db", "ALLOWED_USER_IDS": "123,@bob"},
		"ADMIN_USER_IDS":          {"TELEGRAM_BOT_TOKEN": "1:a", "DATABASE_URL": "postgres://x@localhost/db", "ADMIN_USER_IDS": "1.5"},
		"DAILY_TOKEN_LIMIT":       {"TELEGRAM_BOT_TOKEN": "1:a", "DATABASE_URL": "postgres://x@localhost/db", "DAILY_TOKEN_LIMIT": "-1"},
		"RATE_LIMIT_PER_MINUTE":   {"TELEGRAM_BOT_TOKEN": "1:a", "DATABASE_URL": "postgres://x@localhost/db", "RATE_LIMIT_PER_MINUTE": "lots"},
		"APPROVAL_REQUIRED_TOOLS": {"TELEGRAM_BOT_TOKEN": "1:a", "DATABASE_URL": "postgres://x@localhost/db", "APPROVAL_REQUIRED_TOOLS": "fetch_url,rm_rf"},
		"FETCH_ALLOW_PRIVATE":     {"TELEGRAM_BOT_TOKEN": "1:a", "DATABASE_URL": "postgres://x@localhost/db", "FETCH_ALLOW_PRIVATE": "maybe"},
		"STREAMING":               {"TELEGRAM_BOT_TOKEN": "1:a", "DATABASE_URL": "postgres://x@localhost/db", "STREAMING": "sometimes"},
		"STREAM_EDIT_INTERVAL":    {"TELEGRAM_BOT_TOKEN": "1:a", "DATABASE_URL": "postgres://x@localhost/db", "STREAM_EDIT_INTERVAL": "1"},
		"MODES_FILE":              {"TELEGRAM_BOT_TOKEN": "1:a", "DATABASE_URL": "postgres://x@localhost/db", "MODES_FILE": "/nonexistent/modes.yaml"},
		"MCP_SERVERS":             {"TELEGRAM_BOT_TOKEN": "1:a", "DATABASE_URL": "postgres://x@localhost/db", "MCP_SERVERS": "/nonexistent/servers.json"},
		"TELEGRAM_RATE_LIMIT":     {"TELEGRAM_BOT_TOKEN": "1:a", "DATABASE_URL": "postgres://x@localhost/db", "TELEGRAM_RATE_LIMIT": "sometimes"},
		"LLM_IDLE_TIMEOUT":        {"TELEGRAM_BOT_TOKEN": "1:a", "DATABASE_URL": "postgres://x@localhost/db", "LLM_IDLE_TIMEOUT": "-5s"},
		"CONTEXT_TOKENS":          {"TELEGRAM_BOT_TOKEN": "1:a", "DATABASE_URL": "postgres://x@localhost/db", "CONTEXT_TOKENS": "10"},
		"MAX_ANSWER_TOKENS":       {"TELEGRAM_BOT_TOKEN": "1:a", "DATABASE_URL": "postgres://x@localhost/db", "MAX_ANSWER_TOKENS": "20000"},
		"SHOW_REASONING":          {"TELEGRAM_BOT_TOKEN": "1:a", "DATABASE_URL": "postgres://x@localhost/db", "SHOW_REASONING": "always"},
		"MODELS":                  {"TELEGRAM_BOT_TOKEN": "1:a", "DATABASE_URL": "postgres://x@localhost/db", "MODELS": "gpt-4o, gemma3 http://localhost:11434/v1 no-toools"},
		"WEBHOOK_URL http":        {"TELEGRAM_BOT_TOKEN": "1:a", "DATABASE_URL": "postgres://x@localhost/db", "MODE": "webhook", "WEBHOOK_URL": "http://bot.example.com/hook"},
		"RETENTION_DAYS":          {"TELEGRAM_BOT_TOKEN": "1:a", "DATABASE_URL": "postgres://x@localhost/db", "RETENTION_DAYS": "7"},
		"EXPORT_PART_BYTES":       {"TELEGRAM_BOT_TOKEN": "1:a", "DATABASE_URL": "postgres://x@localhost/db", "EXPORT_PART_BYTES": "1000"},
	}
	for name, env := range cases {
		env["ENV_FILE"] = "/dev/null"
		var out syncBuffer
		err := run(context.Background(), []string{"membot"}, testkit.Lookup(env), &out, &out)
		var cfgErr *configError
		if key, _, _ := strings.Cut(name, " "); err == nil || !errors.As(err, &cfgErr) || !strings.HasPrefix(err.Error(), key+":") {
			t.Errorf("%s: run = %v, want a config error naming it", name, err)
		}
	}
}

// A variable set in the environment wins over .env even when empty: the
// way to switch a setting of .env off for one run.
func TestAnEmptyVariableOverridesDotEnv(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), ".env")
	if err := os.WriteFile(file, []byte("TELEGRAM_BOT_TOKEN=1:a\nDATABASE_URL=postgres://x@localhost/db\nALLOWED_USER_IDS=5,6\nADMIN_USER_IDS=5\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := loadConfig(testkit.Lookup(map[string]string{"ENV_FILE": file, "ALLOWED_USER_IDS": ""}))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Bot.Access.AllowedUsers) != 0 || !cfg.Bot.Access.Admins[5] {
		t.Fatalf("allowed %v, admins %v: want the empty variable to win and .env to give the rest", cfg.Bot.Access.AllowedUsers, cfg.Bot.Access.Admins)
	}
}

// `membot migrate` needs the database and nothing else: not the bot token.
func TestMigrateNeedsOnlyTheDatabase(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	var out syncBuffer
	env := map[string]string{"ENV_FILE": "/dev/null", "DATABASE_URL": h.Env["DATABASE_URL"]}
	if err := run(context.Background(), []string{"membot", "migrate"}, testkit.Lookup(env), &out, &out); err != nil {
		t.Fatalf("migrate without a token: %v\n%s", err, out.String())
	}
	out = syncBuffer{}
	if err := run(context.Background(), []string{"membot", "migrate", "status"}, testkit.Lookup(env), &out, &out); err != nil ||
		!strings.Contains(out.String(), "00001_core.sql") {
		t.Fatalf("migrate status without a token: %v\n%s", err, out.String())
	}
}

// A self-hosted Bot API server posts to http as well: WEBHOOK_URL may be
// http with one, and only with one.
func TestAnHTTPWebhookNeedsASelfHostedBotAPIServer(t *testing.T) {
	t.Parallel()
	env := map[string]string{"ENV_FILE": "/dev/null", "TELEGRAM_BOT_TOKEN": "1:a", "DATABASE_URL": "postgres://x@localhost/db",
		"MODE": "webhook", "WEBHOOK_URL": "http://membot:8443/hook", "TELEGRAM_API_URL": "http://bot-api:8081"}
	if _, err := loadConfig(testkit.Lookup(env)); err != nil {
		t.Fatalf("http webhook with a self-hosted server: %v", err)
	}
}
