package main

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/joho/godotenv"

	"github.com/membot/membot/agent"
)

// config is every setting, read from the environment (see .env.example).
type config struct {
	TelegramToken   string
	TelegramAPIURL  string
	DatabaseURL     string
	OpenAIKey       string
	OpenAIBaseURL   string
	OpenAIModel     string
	SystemPrompt    string
	HistoryLimit    int
	Location        *time.Location
	LogLevel        slog.Level
	LogFormat       string
	Workers         int
	LLMTimeout      time.Duration
	ShutdownTimeout time.Duration
	PollTimeout     time.Duration
	// AdminUserIDs may decide any chat's approvals (and use admin commands).
	AdminUserIDs map[int64]bool
	// ApprovalRequiredTools name the tools whose calls wait for a person's
	// approval; checked against the registry at start-up.
	ApprovalRequiredTools []string
	FetchAllowPrivate     bool
}

const defaultSystemPrompt = `You are membot, a helpful assistant in a Telegram chat. You remember the conversation.
Each user message starts with the current time in brackets, added by the system: use it when time matters, never repeat it.
Answer in the language the user writes in. Be concise and concrete; Telegram is a chat, not a document.
Use the tools when they help: current_time for the time elsewhere, calculator for any arithmetic.
You have a long-term memory of the user: save lasting facts about them (name, preferences, plans) with remember, correct or delete them with remember and forget; they are shown to you on every turn.
When the user refers to something said long ago, look it up with search_history. Set reminders with set_reminder.
fetch_url reads web pages. Some tools need the user's approval: such a call waits until they press Approve or Reject.`

// configError is a missing or malformed setting; main exits with code 2.
type configError struct{ msg string }

func (e *configError) Error() string { return e.msg }

// env looks settings up in the real environment first, then in .env.
type env struct {
	getenv func(string) string
	file   map[string]string
	err    error // the first bad setting
}

// newEnv reads .env (or ENV_FILE) from the working directory when present.
func newEnv(getenv func(string) string) (*env, error) {
	e := &env{getenv: getenv, file: map[string]string{}}
	path := getenv("ENV_FILE")
	if path == "" {
		path = ".env"
	}
	file, err := godotenv.Read(path)
	switch {
	case err == nil:
		e.file = file
	case errors.Is(err, fs.ErrNotExist) && getenv("ENV_FILE") == "":
	default:
		return nil, &configError{fmt.Sprintf("cannot read %s: %v", path, err)}
	}
	return e, nil
}

func (e *env) lookup(key string) string {
	if v := e.getenv(key); v != "" {
		return v
	}
	return e.file[key]
}

func (e *env) fail(key, format string, args ...any) {
	if e.err == nil {
		e.err = &configError{key + ": " + fmt.Sprintf(format, args...)}
	}
}

func (e *env) str(key, def string) string {
	if v := strings.TrimSpace(e.lookup(key)); v != "" {
		return v
	}
	return def
}

func (e *env) required(key string) string {
	v := e.str(key, "")
	if v == "" {
		e.fail(key, "is required but not set (see .env.example)")
	}
	return v
}

func (e *env) int(key string, def, lo, hi int) int {
	s := e.str(key, "")
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		e.fail(key, "must be a whole number from %d to %d, got %q", lo, hi, s)
		return def
	}
	return n
}

func (e *env) duration(key string, def time.Duration) time.Duration {
	s := e.str(key, "")
	if s == "" {
		return def
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		e.fail(key, "must be a positive duration such as 30s or 2m, got %q", s)
		return def
	}
	return d
}

func (e *env) bool(key string, def bool) bool {
	s := strings.ToLower(e.str(key, ""))
	switch s {
	case "":
		return def
	case "true", "1", "yes", "on":
		return true
	case "false", "0", "no", "off":
		return false
	}
	e.fail(key, "must be true or false, got %q", s)
	return def
}

// list reads a comma-separated list; "none" stands for the empty list, so
// that a default can be switched off.
func (e *env) list(key, def string) []string {
	s := e.str(key, def)
	if strings.EqualFold(s, "none") {
		return nil
	}
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// userIDs reads a comma-separated list of Telegram user ids.
func (e *env) userIDs(key string) map[int64]bool {
	ids := map[int64]bool{}
	for _, item := range e.list(key, "") {
		id, err := strconv.ParseInt(item, 10, 64)
		if err != nil || id <= 0 {
			e.fail(key, "must be Telegram user ids separated by commas (such as 12345,67890), got %q", item)
			return nil
		}
		ids[id] = true
	}
	return ids
}

func (e *env) url(key, def string) string {
	s := strings.TrimRight(e.str(key, def), "/")
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		e.fail(key, "must be an http(s) URL, got %q", s)
	}
	return s
}

// loadConfig reads and checks every setting; the first bad one is the error.
func loadConfig(getenv func(string) string) (*config, error) {
	e, err := newEnv(getenv)
	if err != nil {
		return nil, err
	}
	c := &config{
		TelegramToken:   e.required("TELEGRAM_BOT_TOKEN"),
		TelegramAPIURL:  e.url("TELEGRAM_API_URL", "https://api.telegram.org"),
		DatabaseURL:     e.required("DATABASE_URL"),
		OpenAIKey:       e.str("OPENAI_API_KEY", ""),
		OpenAIBaseURL:   e.url("OPENAI_BASE_URL", "https://api.openai.com/v1"),
		OpenAIModel:     e.str("OPENAI_MODEL", "gpt-4o-mini"),
		SystemPrompt:    e.str("SYSTEM_PROMPT", defaultSystemPrompt),
		HistoryLimit:    e.int("HISTORY_LIMIT", 30, 1, 1000),
		LogFormat:       e.str("LOG_FORMAT", "text"),
		Workers:         e.int("WORKERS", 16, 1, 1024),
		LLMTimeout:      e.duration("LLM_TIMEOUT", 60*time.Second),
		ShutdownTimeout: e.duration("SHUTDOWN_TIMEOUT", 30*time.Second),
		PollTimeout:     e.duration("POLL_TIMEOUT", 30*time.Second),

		AdminUserIDs:          e.userIDs("ADMIN_USER_IDS"),
		ApprovalRequiredTools: e.list("APPROVAL_REQUIRED_TOOLS", "fetch_url"),
		FetchAllowPrivate:     e.bool("FETCH_ALLOW_PRIVATE", false),
	}
	if strings.ContainsAny(c.TelegramToken, " /?#%") {
		e.fail("TELEGRAM_BOT_TOKEN", "has characters a bot token never has (it looks like 123456:ABC-DEF...)")
	}
	tz := e.str("TIMEZONE", "Europe/Moscow")
	if loc, err := time.LoadLocation(tz); err != nil {
		e.fail("TIMEZONE", "is not an IANA time zone name (such as Europe/Moscow), got %q", tz)
	} else {
		c.Location = loc
	}
	level := e.str("LOG_LEVEL", "info")
	if err := c.LogLevel.UnmarshalText([]byte(level)); err != nil {
		e.fail("LOG_LEVEL", "must be debug, info, warn or error, got %q", level)
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		e.fail("LOG_FORMAT", "must be text or json, got %q", c.LogFormat)
	}
	if _, err := pgx.ParseConfig(c.DatabaseURL); err != nil && c.DatabaseURL != "" {
		e.fail("DATABASE_URL", "is not a valid PostgreSQL URL (postgres://user:password@host:5432/db)")
	}
	for _, name := range c.ApprovalRequiredTools {
		if !slices.Contains(agent.BuiltinNames(), name) {
			e.fail("APPROVAL_REQUIRED_TOOLS", "there is no tool %q (the tools: %s; or none)", name, strings.Join(agent.BuiltinNames(), ", "))
		}
	}
	if e.err != nil {
		return nil, e.err
	}
	return c, nil
}
