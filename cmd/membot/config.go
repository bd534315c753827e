package main

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/joho/godotenv"
)

// config is every setting, read from the environment (see .env.example).
type config struct {
	TelegramToken  string
	TelegramAPIURL string
	// TelegramRateLimit keeps sends under Telegram's limits; off for benchmarks.
	TelegramRateLimit bool
	DatabaseURL       string
	OpenAIKey         string
	OpenAIBaseURL     string
	OpenAIModel       string
	SystemPrompt      string
	HistoryLimit      int
	Location          *time.Location
	LogLevel          slog.Level
	LogFormat         string
	Workers           int
	LLMTimeout        time.Duration
	ShutdownTimeout   time.Duration
	PollTimeout       time.Duration
}

const defaultSystemPrompt = `You are membot, a helpful assistant in a Telegram chat. You remember the conversation.
Each user message starts with the current time in brackets, added by the system: use it when time matters, never repeat it.
Answer in the language the user writes in. Be concise and concrete; Telegram is a chat, not a document.
Use the tools when they help: current_time for the time elsewhere, calculator for any arithmetic.`

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

// onOff reads a switch written as on or off (true/false, 1/0 and yes/no pass too).
func (e *env) onOff(key string, def bool) bool {
	switch s := strings.ToLower(e.str(key, "")); s {
	case "":
		return def
	case "on", "true", "1", "yes":
		return true
	case "off", "false", "0", "no":
		return false
	default:
		e.fail(key, "must be on or off, got %q", s)
		return def
	}
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
		TelegramToken:     e.required("TELEGRAM_BOT_TOKEN"),
		TelegramAPIURL:    e.url("TELEGRAM_API_URL", "https://api.telegram.org"),
		TelegramRateLimit: e.onOff("TELEGRAM_RATE_LIMIT", true),
		DatabaseURL:       e.required("DATABASE_URL"),
		OpenAIKey:         e.str("OPENAI_API_KEY", ""),
		OpenAIBaseURL:     e.url("OPENAI_BASE_URL", "https://api.openai.com/v1"),
		OpenAIModel:       e.str("OPENAI_MODEL", "gpt-4o-mini"),
		SystemPrompt:      e.str("SYSTEM_PROMPT", defaultSystemPrompt),
		HistoryLimit:      e.int("HISTORY_LIMIT", 30, 1, 1000),
		LogFormat:         e.str("LOG_FORMAT", "text"),
		Workers:           e.int("WORKERS", 16, 1, 1024),
		LLMTimeout:        e.duration("LLM_TIMEOUT", 60*time.Second),
		ShutdownTimeout:   e.duration("SHUTDOWN_TIMEOUT", 30*time.Second),
		PollTimeout:       e.duration("POLL_TIMEOUT", 30*time.Second),
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
	if e.err != nil {
		return nil, e.err
	}
	return c, nil
}
