package app

import (
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/membot/membot/internal/redact"
)

// logStart logs the start line, with what an operator checks first (whom
// the bot serves is said once the database and Telegram answer:
// announceAccess).
func logStart(cfg *Config, log *slog.Logger) {
	log.Info("membot starting", append([]any{"mode", cfg.Intake.Mode, "model", cfg.Agent.Model, "llm", redact.URLs(cfg.LLM.Chat.BaseURL), "timezone", cfg.Location.String(),
		"history_limit", cfg.Agent.HistoryLimit, "context_tokens", cfg.Agent.ContextTokens, "max_answer_tokens", cfg.Agent.MaxAnswerTokens,
		"models", len(cfg.LLM.Models), "workers", cfg.Intake.Workers, "streaming", cfg.Bot.Streaming, "assistant_modes", len(cfg.Agent.Modes.List()),
		"database", databaseKind(cfg), "mcp_servers", len(cfg.MCPServers)}, accessAttrs(cfg)...)...)
}

// accessAttrs are the access settings for the start line, so an operator
// sees at once who the bot serves: the allowlists, the admins and the
// limits (access: owner, open or allowlist, as access.Policy.Mode).
func accessAttrs(cfg *Config) []any {
	return []any{"access", string(cfg.Bot.Access.Mode()), "allowed_users", idList(cfg.Bot.Access.AllowedUsers), "allowed_chats", idList(cfg.Bot.Access.AllowedChats),
		"admins", idList(cfg.Bot.Access.Admins), "daily_token_limit", cfg.Bot.Access.DailyTokenLimit, "rate_limit_per_minute", cfg.Bot.Access.RatePerMinute}
}

// idList is a set of ids, sorted and comma-separated.
func idList(ids map[int64]bool) string {
	var list []int64
	for id := range ids {
		list = append(list, id)
	}
	slices.Sort(list)
	var b strings.Builder
	for i, id := range list {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(id, 10))
	}
	return b.String()
}

// databaseKind says which database the start line names: DATABASE_URL's
// (never the URL: it may hold a password) or membot's own in DATA_DIR.
func databaseKind(cfg *Config) string {
	if cfg.Database.URL != "" {
		return "DATABASE_URL"
	}
	return "embedded in " + cfg.Database.DataDir
}

// whileWaiting logs "msg: cause" after 5 s and then every 30 s until the
// returned function is called: a start held up by a service that does not
// answer says so, and why (cause: the newest failure, in words), instead
// of falling silent.
func whileWaiting(log *slog.Logger, msg string, cause func() string, args ...any) (done func()) {
	stop := make(chan struct{})
	go func() {
		wait := 5 * time.Second
		for {
			select {
			case <-stop:
				return
			case <-time.After(wait):
				log.Warn(msg+": "+cause(), args...)
				wait = 30 * time.Second
			}
		}
	}()
	return func() { close(stop) }
}

// NewLogger is the program's logger, as LOG_LEVEL and LOG_FORMAT say,
// writing to w with every secret of cfg taken out.
func NewLogger(cfg *Config, w io.Writer) *slog.Logger {
	w = cfg.Secrets().Writer(w)
	opts := &slog.HandlerOptions{Level: cfg.Log.Level}
	if cfg.Log.Format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
