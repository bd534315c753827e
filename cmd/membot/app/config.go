package app

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/joho/godotenv"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/bot"
	"github.com/membot/membot/bot/inbox"
)

// Config is every setting, read from the environment (see .env.example).
type Config struct {
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
	LLMTimeout      time.Duration // a whole model call
	LLMIdleTimeout  time.Duration // the gap between streamed chunks
	ShutdownTimeout time.Duration
	PollTimeout     time.Duration
	// TelegramRateLimit keeps sends under Telegram's limits; off for benchmarks.
	TelegramRateLimit bool

	// Intake: polling, or webhook with the settings after it.
	Mode           string
	WebhookURL     string
	WebhookListen  string
	WebhookSecret  string
	WebhookTLSCert string
	WebhookTLSKey  string
	MetricsAddr    string // "" keeps the metrics listener off

	// Access and limits.
	AllowedUserIDs  map[int64]bool
	AllowedChatIDs  map[int64]bool
	AdminUserIDs    map[int64]bool
	DailyTokenLimit int64
	RatePerMinute   int

	// Tools: the ones whose calls wait for a person's approval (checked
	// against the built-in tools), and whether fetch_url may reach private
	// addresses (tests only).
	ApprovalRequiredTools []string
	FetchAllowPrivate     bool
	ReminderMinLead       time.Duration
	ExportPartBytes       int64
	Retention             time.Duration
	// Answers: streamed or not; the assistant's modes.
	Streaming   bool
	StreamEvery time.Duration
	ModesFile   string
	Modes       *agent.Modes

	// Model servers: the models /model offers (OPENAI_MODEL first) with
	// their servers and flags, the context and answer bounds, and whether
	// the model's thinking is shown.
	Models          []ModelSetting
	ContextTokens   int
	MaxAnswerTokens int
	ShowReasoning   string // "off" or "collapsed"

	// Voice messages, photos and files. The transcription and
	// speech servers default to the chat model's (OPENAI_BASE_URL and
	// OPENAI_API_KEY); an empty model turns the feature off.
	TranscriptionModel   string
	TranscriptionBaseURL string
	TranscriptionKey     string
	TranscriptEcho       string // "quote" or "off"
	Vision               string // "auto", "on" or "off"
	ImageHistory         int
	FileChars            int
	FileMaxBytes         int64
	TTSModel             string
	TTSVoice             string
	TTSBaseURL           string
	TTSKey               string

	// ConfigurePool is not a setting: a program that embeds the bot
	// (cmd/membench) sets it to watch the database traffic.
	ConfigurePool func(*pgxpool.Config)
	// ChatBlockedAfter is how long a chat's update may be in hand before the chat
	// counts as blocked (/readyz, membot_chats_blocked, the log).
	ChatBlockedAfter time.Duration

	// Memory: facts extracted after turns (AUTO_MEMORY, with
	// MEMORY_MODEL), older messages recalled into each turn (AUTO_RECALL),
	// semantic recall over embeddings (EMBEDDINGS_*), and the bounds of the
	// background work.
	AutoMemory           bool
	Summaries            bool
	MemoryModel          string
	AutoRecall           int
	EmbeddingsModel      string
	EmbeddingsBaseURL    string
	EmbeddingsKey        string
	MemoryCallsPerMinute int
	EmbeddingsPerMinute  int

	// Drafts in private chats and Stop.
	DraftEvery time.Duration // between two drafts of a streamed answer
	StopEvery  time.Duration // how often a running answer looks for a stop request

	// DataDir is where the embedded PostgreSQL lives when DATABASE_URL is unset.
	DataDir string
}

const defaultSystemPrompt = `You are membot, a helpful assistant in a Telegram chat. You remember the conversation.
Each user message starts with the current time in brackets, added by the system: use it when time matters, never repeat it.
Answer in the language the user writes in. Be concise and concrete; Telegram is a chat, not a document.
Use the tools when they help: current_time for the time elsewhere, calculator for any arithmetic.
You have a long-term memory of the user: save lasting facts about them (name, preferences, plans) with remember, correct or delete them with remember and forget; they are shown to you on every turn.
When the user refers to something said long ago, look it up with search_history. Set reminders with set_reminder.
fetch_url reads web pages. Some tools need the user's approval: such a call waits until they press Approve or Reject.
What people send besides text comes marked: [voice 0:12] is a voice message transcribed by machine (it may mishear words), [photo] an image shown to you with the message, [file name] a file whose text follows.`

// ConfigError is a missing or malformed setting; main exits with code 2.
type ConfigError struct{ msg string }

// NewConfigError reports a bad setting or command line.
func NewConfigError(msg string) *ConfigError { return &ConfigError{msg} }

func (e *ConfigError) Error() string { return e.msg }

// Getenv looks a variable up in the environment, telling a variable set
// to "" from one not set (os.LookupEnv).
type Getenv func(key string) (string, bool)

// env looks settings up in the real environment first, then in .env: a
// variable set in the environment wins even when empty, so `X= membot`
// overrides X of .env.
type env struct {
	getenv Getenv
	file   map[string]string
	err    error // the first bad setting
}

// newEnv reads .env (or ENV_FILE) from the working directory when present.
func newEnv(getenv Getenv) (*env, error) {
	e := &env{getenv: getenv, file: map[string]string{}}
	envFile, _ := getenv("ENV_FILE")
	path := envFile
	if path == "" {
		path = ".env"
	}
	file, err := godotenv.Read(path)
	switch {
	case err == nil:
		e.file = file
	case errors.Is(err, fs.ErrNotExist) && envFile == "":
	default:
		return nil, &ConfigError{fmt.Sprintf("cannot read %s: %v", path, err)}
	}
	return e, nil
}

// LogFormat is LOG_FORMAT as the environment and .env set it ("text" when
// unset or unreadable), for reporting an error that stopped start-up in
// the form the logs have.
func LogFormat(getenv Getenv) string {
	if e, err := newEnv(getenv); err == nil && e.lookup("LOG_FORMAT") == "json" {
		return "json"
	}
	return "text"
}

// retentionDays reads RETENTION_DAYS: 0 keeps the operational rows for
// ever; otherwise at least 35 days, so this month's /usage stays whole.
func retentionDays(e *env) time.Duration {
	days := e.int("RETENTION_DAYS", 90, 0, 36500)
	if days > 0 && days < 35 {
		e.fail("RETENTION_DAYS", "must be 0 (keep for ever) or at least 35 (a month of /usage), got %d", days)
	}
	return time.Duration(days) * 24 * time.Hour
}

func (e *env) lookup(key string) string {
	if v, set := e.getenv(key); set {
		return v
	}
	return e.file[key]
}

func (e *env) fail(key, format string, args ...any) {
	if e.err == nil {
		e.err = &ConfigError{key + ": " + fmt.Sprintf(format, args...)}
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

// int64 reads a whole number of at least lo; 0 conventionally means "off".
func (e *env) int64(key string, lo int64) int64 {
	s := e.str(key, "")
	if s == "" {
		return 0
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < lo {
		e.fail(key, "must be a whole number of at least %d, got %q", lo, s)
		return 0
	}
	return n
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

// ids reads a list of Telegram ids separated by commas or spaces.
func (e *env) ids(key string) map[int64]bool {
	set := map[int64]bool{}
	for _, f := range strings.FieldsFunc(e.str(key, ""), func(r rune) bool { return r == ',' || r == ' ' || r == ';' }) {
		id, err := strconv.ParseInt(f, 10, 64)
		if err != nil || id == 0 {
			e.fail(key, "must be Telegram ids separated by commas, such as 123456789,-1001234567890; %q is not one", f)
			return set
		}
		set[id] = true
	}
	return set
}

// addr reads a listen address such as :9090 or 127.0.0.1:8443.
func (e *env) addr(key, def string) string {
	s := e.str(key, def)
	if s == "" {
		return ""
	}
	if _, port, err := net.SplitHostPort(s); err != nil || port == "" {
		e.fail(key, "must be a listen address such as :9090 or 127.0.0.1:9090, got %q", s)
	}
	return s
}

// location reads TIMEZONE.
func (e *env) location() *time.Location {
	tz := e.str("TIMEZONE", "Europe/Moscow")
	loc, err := time.LoadLocation(tz)
	if err != nil {
		e.fail("TIMEZONE", "is not an IANA time zone name (such as Europe/Moscow), got %q", tz)
		return time.UTC
	}
	return loc
}

// databaseURL reads DATABASE_URL; unset, membot runs PostgreSQL itself (DATA_DIR).
func (e *env) databaseURL() string {
	dsn := e.str("DATABASE_URL", "")
	if _, err := pgx.ParseConfig(dsn); err != nil && dsn != "" {
		e.fail("DATABASE_URL", "is not a valid PostgreSQL URL (postgres://user:password@host:5432/db)")
	}
	return dsn
}

func (e *env) url(key, def string) string {
	s := strings.TrimRight(e.str(key, def), "/")
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		e.fail(key, "must be an http(s) URL, got %q", s)
	}
	return s
}

// LoadConfig reads and checks every setting; the first bad one is the error.
func LoadConfig(getenv Getenv) (*Config, error) {
	e, err := newEnv(getenv)
	if err != nil {
		return nil, err
	}
	c := &Config{
		TelegramToken:   e.required("TELEGRAM_BOT_TOKEN"),
		TelegramAPIURL:  e.url("TELEGRAM_API_URL", "https://api.telegram.org"),
		DatabaseURL:     e.databaseURL(),
		OpenAIKey:       e.str("OPENAI_API_KEY", ""),
		OpenAIBaseURL:   e.url("OPENAI_BASE_URL", "https://api.openai.com/v1"),
		OpenAIModel:     e.str("OPENAI_MODEL", "gpt-4o-mini"),
		SystemPrompt:    e.str("SYSTEM_PROMPT", defaultSystemPrompt),
		HistoryLimit:    e.int("HISTORY_LIMIT", 30, 1, 1000),
		LogFormat:       e.str("LOG_FORMAT", "text"),
		Workers:         e.int("WORKERS", 16, 1, 1024),
		LLMTimeout:      e.duration("LLM_TIMEOUT", 300*time.Second),
		LLMIdleTimeout:  e.duration("LLM_IDLE_TIMEOUT", 120*time.Second),
		ContextTokens:   e.int("CONTEXT_TOKENS", 16000, 1000, 10000000),
		MaxAnswerTokens: e.int("MAX_ANSWER_TOKENS", 8192, 16, 1000000),
		ShowReasoning:   e.str("SHOW_REASONING", "off"),
		ShutdownTimeout: e.duration("SHUTDOWN_TIMEOUT", 30*time.Second),
		PollTimeout:     e.duration("POLL_TIMEOUT", 30*time.Second),
		Location:        e.location(),
		Mode:            e.str("MODE", "polling"),
		WebhookListen:   e.addr("WEBHOOK_LISTEN", ":8443"),
		WebhookSecret:   e.str("WEBHOOK_SECRET", ""),
		WebhookTLSCert:  e.str("WEBHOOK_TLS_CERT", ""),
		WebhookTLSKey:   e.str("WEBHOOK_TLS_KEY", ""),
		MetricsAddr:     e.addr("METRICS_ADDR", ""),
		AllowedUserIDs:  e.ids("ALLOWED_USER_IDS"),
		AllowedChatIDs:  e.ids("ALLOWED_CHAT_IDS"),
		AdminUserIDs:    e.ids("ADMIN_USER_IDS"),
		DailyTokenLimit: e.int64("DAILY_TOKEN_LIMIT", 0),
		RatePerMinute:   e.int("RATE_LIMIT_PER_MINUTE", 0, 0, 100000),

		ApprovalRequiredTools: e.list("APPROVAL_REQUIRED_TOOLS", "fetch_url"),
		FetchAllowPrivate:     e.bool("FETCH_ALLOW_PRIVATE", false),
		ReminderMinLead:       e.duration("REMINDER_MIN_LEAD", time.Minute),
		Streaming:             e.bool("STREAMING", true),
		StreamEvery:           e.duration("STREAM_EDIT_INTERVAL", time.Second),
		ModesFile:             e.str("MODES_FILE", ""),
		ExportPartBytes:       int64(e.int("EXPORT_PART_BYTES", bot.DefaultExportPartBytes, 64<<10, 2000<<20)),
		Retention:             retentionDays(e),
		ChatBlockedAfter:      e.duration("CHAT_BLOCKED_AFTER", inbox.DefaultBlockedAfter),

		TelegramRateLimit: e.bool("TELEGRAM_RATE_LIMIT", true),
		DraftEvery:        e.duration("STREAM_DRAFT_INTERVAL", 300*time.Millisecond),
		StopEvery:         e.duration("STOP_CHECK_INTERVAL", 500*time.Millisecond),

		DataDir: dataDir(e),
	}
	if strings.ContainsAny(c.TelegramToken, " /?#%") {
		e.fail("TELEGRAM_BOT_TOKEN", "has characters a bot token never has (it looks like 123456:ABC-DEF...)")
	}
	level := e.str("LOG_LEVEL", "info")
	if err := c.LogLevel.UnmarshalText([]byte(level)); err != nil {
		e.fail("LOG_LEVEL", "must be debug, info, warn or error, got %q", level)
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		e.fail("LOG_FORMAT", "must be text or json, got %q", c.LogFormat)
	}
	c.checkWebhook(e)
	c.loadMedia(e)
	for _, name := range c.ApprovalRequiredTools {
		if !slices.Contains(agent.BuiltinNames(), name) {
			e.fail("APPROVAL_REQUIRED_TOOLS", "there is no tool %q (the tools: %s; or none)", name, strings.Join(agent.BuiltinNames(), ", "))
		}
	}
	c.loadMemory(e)
	c.Modes = loadModes(e, c)
	c.Models = loadModels(e, c.OpenAIModel, c.OpenAIBaseURL)
	if c.ShowReasoning != "off" && c.ShowReasoning != "collapsed" {
		e.fail("SHOW_REASONING", "must be off or collapsed, got %q", c.ShowReasoning)
	}
	if c.MaxAnswerTokens >= c.ContextTokens {
		e.fail("MAX_ANSWER_TOKENS", "must be less than CONTEXT_TOKENS (%d), got %d", c.ContextTokens, c.MaxAnswerTokens)
	}
	if e.err != nil {
		return nil, e.err
	}
	return c, nil
}

// optional reads a setting whose empty value means "off": def when it is
// not set at all, in the environment or in .env.
func (e *env) optional(key, def string) string {
	if v, set := e.getenv(key); set {
		return strings.TrimSpace(v)
	}
	if v, set := e.file[key]; set {
		return strings.TrimSpace(v)
	}
	return def
}

// loadMedia reads the settings of voice messages, photos and files.
func (c *Config) loadMedia(e *env) {
	c.TranscriptionModel = e.optional("TRANSCRIPTION_MODEL", "whisper-1")
	c.TranscriptionBaseURL = e.url("TRANSCRIPTION_BASE_URL", c.OpenAIBaseURL)
	c.TranscriptionKey = e.str("TRANSCRIPTION_API_KEY", c.OpenAIKey)
	c.TranscriptEcho = e.str("TRANSCRIPT_ECHO", "quote")
	if c.TranscriptEcho != "quote" && c.TranscriptEcho != "off" {
		e.fail("TRANSCRIPT_ECHO", "must be quote or off, got %q", c.TranscriptEcho)
	}
	c.Vision = e.str("VISION", agent.VisionAuto)
	if c.Vision != agent.VisionAuto && c.Vision != agent.VisionOn && c.Vision != agent.VisionOff {
		e.fail("VISION", "must be auto, on or off, got %q", c.Vision)
	}
	c.ImageHistory = e.int("IMAGE_HISTORY", 2, 0, 10)
	c.FileChars = e.int("FILE_CHARS", bot.DefaultFileChars, 500, 1000000)
	c.FileMaxBytes = int64(e.int("FILE_MAX_BYTES", 20<<20, 1024, 20<<20))
	c.TTSModel = e.optional("TTS_MODEL", "tts-1")
	c.TTSVoice = e.str("TTS_VOICE", "alloy")
	c.TTSBaseURL = e.url("TTS_BASE_URL", c.OpenAIBaseURL)
	c.TTSKey = e.str("TTS_API_KEY", c.OpenAIKey)
}

// webhookSecretChars are the characters Telegram allows in a secret_token.
var webhookSecretChars = regexp.MustCompile(`^[A-Za-z0-9_-]{1,256}$`)

// checkWebhook checks the intake settings: webhook mode needs a public
// https URL, since Telegram posts only there.
// loadMemory reads the settings of memory; the embeddings
// server and key default to the chat model's.
func (c *Config) loadMemory(e *env) {
	c.AutoMemory = e.bool("AUTO_MEMORY", true)
	c.Summaries = e.bool("SUMMARIES", true)
	c.MemoryModel = e.str("MEMORY_MODEL", c.OpenAIModel)
	c.AutoRecall = e.int("AUTO_RECALL", 3, 0, 10)
	c.EmbeddingsModel = e.str("EMBEDDINGS_MODEL", "")
	c.EmbeddingsBaseURL = e.url("EMBEDDINGS_BASE_URL", c.OpenAIBaseURL)
	c.EmbeddingsKey = e.str("EMBEDDINGS_API_KEY", c.OpenAIKey)
	c.MemoryCallsPerMinute = e.int("MEMORY_CALLS_PER_MINUTE", 30, 1, 100000)
	c.EmbeddingsPerMinute = e.int("EMBEDDINGS_PER_MINUTE", 30, 1, 100000)
}

func (c *Config) checkWebhook(e *env) {
	switch c.Mode {
	case "polling":
		return
	case "webhook":
	default:
		e.fail("MODE", "must be polling or webhook, got %q", c.Mode)
		return
	}
	raw := e.str("WEBHOOK_URL", "")
	if raw == "" {
		e.fail("WEBHOOK_URL", "is required when MODE=webhook: the public https URL Telegram posts updates to")
		return
	}
	// Telegram's own servers post only to https; a self-hosted Bot API
	// server (TELEGRAM_API_URL) also posts to http.
	selfHosted := !strings.HasPrefix(c.TelegramAPIURL, "https://api.telegram.org")
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && !(selfHosted && u.Scheme == "http")) {
		e.fail("WEBHOOK_URL", "must be a public https URL such as https://bot.example.com/telegram (http only with a self-hosted Bot API server, TELEGRAM_API_URL), got %q", raw)
		return
	}
	c.WebhookURL = raw
	if c.WebhookSecret != "" && !webhookSecretChars.MatchString(c.WebhookSecret) {
		e.fail("WEBHOOK_SECRET", "must be 1-256 characters of A-Z, a-z, 0-9, _ and -")
	}
	if (c.WebhookTLSCert == "") != (c.WebhookTLSKey == "") {
		e.fail("WEBHOOK_TLS_CERT", "and WEBHOOK_TLS_KEY must be set together (or neither, when a proxy terminates TLS)")
	}
}

// AdminConfig is what `membot admin` needs: the database and the zone.
type AdminConfig struct {
	DatabaseURL string
	Location    *time.Location
	DataDir     string // the embedded PostgreSQL's, when DATABASE_URL is unset
}

// LoadAdminConfig reads the settings `membot admin` needs.
func LoadAdminConfig(getenv Getenv) (*AdminConfig, error) {
	e, err := newEnv(getenv)
	if err != nil {
		return nil, err
	}
	c := &AdminConfig{DatabaseURL: e.databaseURL(), Location: e.location(), DataDir: dataDir(e)}
	if e.err != nil {
		return nil, e.err
	}
	return c, nil
}

// loadModes builds the modes: the built-in ones and those of MODES_FILE.
func loadModes(e *env, c *Config) *agent.Modes {
	var extra []agent.Mode
	if c.ModesFile != "" {
		var err error
		if extra, err = agent.ReadModesFile(c.ModesFile); err != nil {
			e.fail("MODES_FILE", "%v", err)
			return nil
		}
	}
	modes, err := agent.NewModes(c.SystemPrompt, extra)
	if err != nil {
		e.fail("MODES_FILE", "%s: %v", c.ModesFile, err)
	}
	return modes
}

// ModelSetting is one entry of MODELS: a model, the base URL of its server
// (OPENAI_BASE_URL when none is given) and what that server refuses.
type ModelSetting struct {
	Name    string
	BaseURL string
	Caps    agent.Capabilities
}

// loadModels reads MODELS: entries separated by commas, each a model name
// followed, after spaces, by an optional http(s) base URL and flags, e.g.
// "gpt-4o-mini, llama3.1:8b http://localhost:11434/v1 no-stream-options".
// The default model comes first whether listed or not.
func loadModels(e *env, def, baseURL string) []ModelSetting {
	models := []ModelSetting{{Name: def, BaseURL: baseURL}}
	for _, entry := range e.list("MODELS", "") {
		fields := strings.Fields(entry)
		m := ModelSetting{Name: fields[0], BaseURL: baseURL}
		var flags []string
		for _, f := range fields[1:] {
			if strings.HasPrefix(f, "http://") || strings.HasPrefix(f, "https://") {
				u, err := url.Parse(f)
				if err != nil || u.Host == "" {
					e.fail("MODELS", "%q: %q is not a URL", entry, f)
				}
				m.BaseURL = strings.TrimRight(f, "/")
				continue
			}
			flags = append(flags, f)
		}
		caps, err := agent.ParseCapabilities(flags)
		if err != nil {
			e.fail("MODELS", "%q: %v", entry, err)
		}
		m.Caps = caps
		if i := slices.IndexFunc(models, func(x ModelSetting) bool { return x.Name == m.Name }); i >= 0 {
			models[i] = m
			continue
		}
		models = append(models, m)
	}
	return models
}
