package app

import (
	"context"
	"log/slog"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/agent/images"
	"github.com/membot/membot/agent/llm"
	"github.com/membot/membot/agent/mcptools"
	"github.com/membot/membot/agent/memorize"
	"github.com/membot/membot/agent/modes"
	"github.com/membot/membot/agent/tools"
	"github.com/membot/membot/agent/websearch"
	"github.com/membot/membot/bot"
	"github.com/membot/membot/bot/access"
	"github.com/membot/membot/bot/inbox"
	"github.com/membot/membot/bot/remind"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/internal/redact"
	"github.com/membot/membot/web"
)

// Config is every setting, each in the Config of the package it belongs
// to, with that package's defaults (see .env.example). LoadConfig reads
// them from the environment by the table of settings below.
type Config struct {
	Telegram telegram.Config // how Telegram is reached
	Intake   inbox.Config    // how updates arrive, how many chats are answered at once
	Database DatabaseConfig  // where everything is kept
	LLM      LLMConfig       // where the models are
	Agent    agent.Config    // the assistant: model, prompt, window, media, recall, approvals
	Tools    tools.Env       // reminders' lead, fetch_url's reach
	// Reminders is how often reminders and tasks are looked for (bot/remind).
	Reminders remind.Config
	// MCPServers are the MCP servers whose tools the model is offered, as
	// the file MCP_SERVERS names them (agent/mcptools).
	MCPServers []mcptools.Server
	// MCPToolsBudget bounds the estimated tokens of all MCP tools' definitions
	// together (MCP_TOOLS_BUDGET): they go into every request.
	MCPToolsBudget int
	// WebSearch is the provider web_search asks (agent/websearch); none
	// configured: the tool is not offered.
	WebSearch websearch.Config
	Memory    memorize.Config // the memory work after turns
	Images    images.Config   // pictures: /image and generate_image
	Bot       bot.Config      // access and limits, how answers are shown, media

	// ModesFile is a YAML or JSON file of more modes (MODES_FILE), read
	// into Agent.Modes with the built-in ones.
	ModesFile string
	// Location is the zone of the stamps, reminders, limits and admin
	// views (TIMEZONE).
	Location *time.Location
	// Retention is how long finished updates, events and llm_calls are
	// kept (RETENTION_DAYS); 0: for ever.
	Retention time.Duration
	// ShutdownTimeout is how long turns in flight may take to finish once
	// a stop is asked for (SHUTDOWN_TIMEOUT).
	ShutdownTimeout time.Duration
	// Log is what the program logs, and how.
	Log struct {
		Level  slog.Level // LOG_LEVEL
		Format string     // LOG_FORMAT: text or json
	}
	Metrics struct {
		// Addr is where /healthz, /readyz and /metrics are served
		// (METRICS_ADDR); "" keeps the listener off.
		Addr string
	}
	Web web.Config // the web interface and the Mini App

	// ConfigurePool is not a setting: a program that embeds the bot
	// (cmd/membench) sets it to watch the database traffic.
	ConfigurePool func(*pgxpool.Config)
	// Checks is not a setting either: membot's command line gives the web
	// interface membot doctor's checks, which it runs when asked.
	Checks func(ctx context.Context) []web.Check

	// seen is each setting's value as it was read (ShownSettings).
	seen map[string]seenValue
}

// DatabaseConfig is where the bot's database is.
type DatabaseConfig struct {
	// URL is a PostgreSQL server's (DATABASE_URL); empty: membot runs
	// PostgreSQL itself, in DataDir.
	URL string
	// DataDir is where that embedded PostgreSQL keeps its data (DATA_DIR;
	// the user's data directory by default, see dataDir).
	DataDir string
}

// LLMConfig is where the models are. The servers of transcription, speech
// and embeddings default to the chat model's.
type LLMConfig struct {
	Chat llm.Server // OPENAI_BASE_URL, OPENAI_API_KEY
	// Idle is the longest silence in a streamed answer (LLM_IDLE_TIMEOUT).
	Idle time.Duration
	// Models are the models /model offers (MODELS), the default
	// (Agent.Model) first, with their servers and flags.
	Models        []ModelSetting
	Transcription llm.Server // TRANSCRIPTION_BASE_URL, TRANSCRIPTION_API_KEY
	Speech        llm.Server // TTS_BASE_URL, TTS_API_KEY
	Embeddings    llm.Server // EMBEDDINGS_BASE_URL, EMBEDDINGS_API_KEY
	Images        llm.Server // IMAGE_BASE_URL, IMAGE_API_KEY
}

// ModelSetting is one entry of MODELS: a model and what its server
// refuses (agent.Model, the agent's settings), and the base URL of that
// server (OPENAI_BASE_URL when none is given), of which the wiring makes
// the agent's client (agent.Parts.Servers).
type ModelSetting struct {
	agent.Model
	BaseURL string
}

// defaultConfig is every setting's default: the packages' own, and the
// program's.
func defaultConfig() *Config {
	c := &Config{
		Telegram:        telegram.DefaultConfig(),
		Intake:          inbox.DefaultConfig(),
		LLM:             LLMConfig{Chat: llm.Server{BaseURL: llm.DefaultBaseURL}, Idle: llm.DefaultIdle},
		Agent:           agent.DefaultConfig(),
		Tools:           tools.DefaultEnv(),
		Reminders:       remind.DefaultConfig(),
		WebSearch:       websearch.DefaultConfig(),
		Memory:          memorize.DefaultConfig(),
		Images:          images.DefaultConfig(),
		Bot:             bot.DefaultConfig(),
		Web:             web.DefaultConfig(),
		Retention:       90 * 24 * time.Hour,
		MCPToolsBudget:  mcptools.DefaultBudget,
		ShutdownTimeout: 30 * time.Second,
	}
	c.Log.Level, c.Log.Format = slog.LevelInfo, "text"
	return c
}

// setting is one variable of the environment and how it is read into its
// field of Config.
type setting struct {
	name string
	read reader
}

// settings maps every variable to its field, in the order and groups of
// .env.example, which is the order they are read in: a setting whose
// default is another's comes after it. The first bad setting is the error.
func (c *Config) settings() []setting {
	return []setting{
		// Telegram (bot/telegram: telegram.Config)
		{"TELEGRAM_BOT_TOKEN", botToken(&c.Telegram.Token)},
		{"TELEGRAM_API_URL", httpURL(&c.Telegram.APIURL)},
		{"POLL_TIMEOUT", duration(&c.Telegram.PollTimeout)},
		{"TELEGRAM_RATE_LIMIT", boolean(&c.Telegram.RateLimit)},

		// How updates arrive (bot/inbox: inbox.Config)
		{"MODE", oneOf(&c.Intake.Mode, inbox.ModePolling, inbox.ModeWebhook)},
		{"WEBHOOK_URL", text(&c.Intake.WebhookURL)}, // checked by checkWebhook
		{"WEBHOOK_LISTEN", listenAddr(&c.Intake.WebhookListen)},
		{"WEBHOOK_TLS_CERT", text(&c.Intake.WebhookTLSCert)},
		{"WEBHOOK_TLS_KEY", text(&c.Intake.WebhookTLSKey)},
		{"WEBHOOK_SECRET", text(&c.Intake.WebhookSecret)},
		{"WORKERS", intIn(&c.Intake.Workers, 1, 1024)},
		{"CHAT_BLOCKED_AFTER", duration(&c.Intake.BlockedAfter)},
		{"GIVE_UP_AFTER_CRASHES", intIn(&c.Intake.GiveUpAfterCrashes, 1, 1000)},

		// Database (cmd/membot/app: DatabaseConfig)
		{"DATABASE_URL", func(e *env, key string) { c.Database.URL = e.databaseURL(key) }},
		{"DATA_DIR", func(e *env, _ string) { c.Database.DataDir = dataDir(e) }},

		// The models and their servers (agent/llm; cmd/membot/app: LLMConfig)
		{"OPENAI_API_KEY", text(&c.LLM.Chat.APIKey)},
		{"OPENAI_BASE_URL", httpURL(&c.LLM.Chat.BaseURL)},
		{"OPENAI_MODEL", text(&c.Agent.Model)},
		{"MODELS", c.readModels},
		{"LLM_TIMEOUT", duration(&c.Agent.Retry.Timeout)},
		{"LLM_IDLE_TIMEOUT", duration(&c.LLM.Idle)},

		// The assistant (agent: agent.Config)
		{"CONTEXT_TOKENS", intIn(&c.Agent.ContextTokens, 1000, 10000000)},
		{"MAX_ANSWER_TOKENS", c.readMaxAnswerTokens},
		{"SYSTEM_PROMPT", text(&c.Agent.SystemPrompt)},
		{"MODES_FILE", c.readModes},
		{"HISTORY_LIMIT", intIn(&c.Agent.HistoryLimit, 1, 1000)},
		{"APPROVAL_REQUIRED_TOOLS", c.readApprovals},

		// The tools (agent/tools: tools.Env)
		{"REMINDER_MIN_LEAD", duration(&c.Tools.ReminderMinLead)},
		{"MIN_TASK_INTERVAL", duration(&c.Tools.MinTaskInterval)},
		{"FETCH_ALLOW_PRIVATE", boolean(&c.Tools.FetchAllowPrivate)},
		{"MCP_SERVERS", c.readMCPServers},
		{"MCP_TOOLS_BUDGET", intIn(&c.MCPToolsBudget, 0, 1000000)},
		{"SEARXNG_URL", optionalURL(&c.WebSearch.SearXNGURL)},
		{"BRAVE_API_KEY", text(&c.WebSearch.BraveAPIKey)},
		{"TAVILY_API_KEY", text(&c.WebSearch.TavilyAPIKey)},
		{"BRAVE_SEARCH_URL", httpURL(&c.WebSearch.BraveURL)},
		{"TAVILY_SEARCH_URL", httpURL(&c.WebSearch.TavilyURL)},

		// Voice messages, photos and files (agent, bot/media: media.Config)
		{"TRANSCRIPTION_MODEL", optional(&c.Agent.TranscriptionModel)},
		{"TRANSCRIPTION_BASE_URL", httpURLOr(&c.LLM.Transcription.BaseURL, &c.LLM.Chat.BaseURL)},
		{"TRANSCRIPTION_API_KEY", textOr(&c.LLM.Transcription.APIKey, &c.LLM.Chat.APIKey)},
		{"TRANSCRIPT_ECHO", either(&c.Bot.Media.ShowHeard, "quote", [2]string{"quote", "off"})},
		{"VISION", oneOf(&c.Agent.Vision, agent.VisionAuto, agent.VisionOn, agent.VisionOff)},
		{"IMAGE_HISTORY", intIn(&c.Agent.ImageHistory, 0, 10)},
		{"FILE_MAX_BYTES", int64In(&c.Bot.Media.FileBytes, 1024, telegram.MaxDownloadBytes)},
		{"FILE_CHARS", intIn(&c.Bot.Media.FileChars, 500, 1000000)},
		{"TTS_MODEL", optional(&c.Agent.TTSModel)},
		{"TTS_VOICE", text(&c.Agent.TTSVoice)},
		{"TTS_BASE_URL", httpURLOr(&c.LLM.Speech.BaseURL, &c.LLM.Chat.BaseURL)},
		{"TTS_API_KEY", textOr(&c.LLM.Speech.APIKey, &c.LLM.Chat.APIKey)},

		// Pictures (agent/images: images.Config)
		{"IMAGE_MODEL", optional(&c.Images.Model)},
		{"IMAGE_BASE_URL", httpURLOr(&c.LLM.Images.BaseURL, &c.LLM.Chat.BaseURL)},
		{"IMAGE_API_KEY", textOr(&c.LLM.Images.APIKey, &c.LLM.Chat.APIKey)},
		{"IMAGE_TOKENS", intIn(&c.Images.TokensPerImage, 0, 10000000)},

		// Memory (agent/memorize: memorize.Config; agent.Config's recall)
		{"AUTO_MEMORY", boolean(&c.Memory.AutoMemory)},
		{"SUMMARIES", boolean(&c.Memory.Summaries)},
		{"MEMORY_MODEL", textOr(&c.Memory.Model, &c.Agent.Model)},
		{"AUTO_RECALL", intIn(&c.Agent.Recall, 0, 10)},
		{"EMBEDDINGS_MODEL", text(&c.Memory.EmbeddingsModel)},
		{"EMBEDDINGS_BASE_URL", httpURLOr(&c.LLM.Embeddings.BaseURL, &c.LLM.Chat.BaseURL)},
		{"EMBEDDINGS_API_KEY", textOr(&c.LLM.Embeddings.APIKey, &c.LLM.Chat.APIKey)},
		{"MEMORY_CALLS_PER_MINUTE", intIn(&c.Memory.CallsPerMinute, 1, 100000)},
		{"EMBEDDINGS_PER_MINUTE", intIn(&c.Memory.EmbedPerMinute, 1, 100000)},

		// How answers are shown (bot: bot.Config, bot/present: present.Config)
		{"STREAMING", boolean(&c.Bot.Streaming)},
		{"STREAM_EDIT_INTERVAL", duration(&c.Bot.Present.EditEvery)},
		{"STREAM_DRAFT_INTERVAL", duration(&c.Bot.Present.DraftEvery)},
		{"STOP_CHECK_INTERVAL", duration(&c.Bot.StopEvery)},
		{"SHOW_REASONING", either(&c.Bot.ShowReasoning, "collapsed", [2]string{"off", "collapsed"})},
		{"EXPORT_PART_BYTES", int64In(&c.Bot.ExportPartBytes, 64<<10, 2000<<20)},
		{"EXPORTS_PER_HOUR", intIn(&c.Bot.ExportsPerHour, 1, 1000)},

		// Who may use the bot, and how much (bot/access: access.Policy)
		{"ALLOWED_USER_IDS", idSet(&c.Bot.Access.AllowedUsers)},
		{"ALLOWED_CHAT_IDS", idSet(&c.Bot.Access.AllowedChats)},
		{"ADMIN_USER_IDS", idSet(&c.Bot.Access.Admins)},
		{"ACCESS", oneOf(&c.Bot.Access.Access, "owner", "open")},
		{"DAILY_TOKEN_LIMIT", int64From(&c.Bot.Access.DailyTokenLimit, 0)},
		{"RATE_LIMIT_PER_MINUTE", intIn(&c.Bot.Access.RatePerMinute, 0, 100000)},

		// Running (cmd/membot/app: Config)
		{"TIMEZONE", func(e *env, key string) { c.Location = e.location(key, "Europe/Moscow") }},
		{"RETENTION_DAYS", c.readRetention},
		{"SHUTDOWN_TIMEOUT", duration(&c.ShutdownTimeout)},
		{"LOG_LEVEL", c.readLogLevel},
		{"LOG_FORMAT", oneOf(&c.Log.Format, "text", "json")},
		{"METRICS_ADDR", listenAddr(&c.Metrics.Addr)},

		// The web interface and the Mini App (web: web.Config)
		{"WEB_ADDR", optionalAddr(&c.Web.Addr)},
		{"WEB_URL", c.readWebURL},
		{"WEB_LINK_TTL", duration(&c.Web.LinkTTL)},
		{"WEB_SESSION_TTL", duration(&c.Web.SessionTTL)},
	}
}

// read reads the settings named, or all of them when none is named.
func (c *Config) read(e *env, names ...string) {
	for _, s := range c.settings() {
		if len(names) == 0 || slices.Contains(names, s.name) {
			s.read(e, s.name)
		}
	}
}

// LoadConfig reads and checks every setting; the first bad one is the error.
func LoadConfig(getenv Getenv) (*Config, error) {
	e, err := newEnv(getenv)
	if err != nil {
		return nil, err
	}
	c := defaultConfig()
	c.read(e)
	c.checkWebhook(e)
	if e.err != nil {
		return nil, e.err
	}
	c.seen = e.seen
	// What several packages are told of one setting.
	c.Agent.Location, c.Tools.Location, c.Bot.Access.Location = c.Location, c.Location, c.Location
	c.Memory.Location, c.Images.Location, c.Reminders.Location = c.Location, c.Location, c.Location
	c.Memory.HistoryLimit = c.Agent.HistoryLimit
	for _, m := range c.LLM.Models {
		c.Agent.Models = append(c.Agent.Models, m.Model)
	}
	c.Bot.Access.Owners = &access.Owners{} // the handler's copy of the policy and the painter's share what they learn
	c.Bot.Media.Vision = c.Agent.Vision
	c.Bot.Media.Transcribe = c.Agent.TranscriptionModel != ""
	return c, nil
}

// AdminConfig is what `membot admin` needs: the database and the zone.
type AdminConfig struct {
	Database DatabaseConfig
	Location *time.Location
}

// LoadAdminConfig reads the settings `membot admin` needs.
func LoadAdminConfig(getenv Getenv) (*AdminConfig, error) {
	e, err := newEnv(getenv)
	if err != nil {
		return nil, err
	}
	c := defaultConfig()
	c.read(e, "DATABASE_URL", "TIMEZONE", "DATA_DIR")
	if e.err != nil {
		return nil, e.err
	}
	return &AdminConfig{Database: c.Database, Location: c.Location}, nil
}

// botToken reads TELEGRAM_BOT_TOKEN, which has no default.
func botToken(p *string) reader {
	return func(e *env, key string) {
		*p = e.str(key, "")
		switch {
		case *p == "":
			e.fail(key, "is required but not set (see .env.example)")
		case strings.ContainsAny(*p, " /?#%"):
			e.fail(key, "has characters a bot token never has (it looks like 123456:ABC-DEF...)")
		}
	}
}

// readMaxAnswerTokens reads MAX_ANSWER_TOKENS, which must leave room in
// CONTEXT_TOKENS for the request.
func (c *Config) readMaxAnswerTokens(e *env, key string) {
	c.Agent.MaxAnswerTokens = e.int(key, c.Agent.MaxAnswerTokens, 16, 1000000)
	if c.Agent.MaxAnswerTokens >= c.Agent.ContextTokens {
		e.fail(key, "must be less than CONTEXT_TOKENS (%d), got %d", c.Agent.ContextTokens, c.Agent.MaxAnswerTokens)
	}
}

// readRetention reads RETENTION_DAYS: 0 keeps the operational rows for
// ever; otherwise at least 35 days, so this month's /usage stays whole.
func (c *Config) readRetention(e *env, key string) {
	days := e.int(key, int(c.Retention/(24*time.Hour)), 0, 36500)
	if days > 0 && days < 35 {
		e.fail(key, "must be 0 (keep for ever) or at least 35 (a month of /usage), got %d", days)
	}
	c.Retention = time.Duration(days) * 24 * time.Hour
}

// readWebURL reads WEB_URL, the address people reach the web interface at.
func (c *Config) readWebURL(e *env, key string) {
	optional(&c.Web.URL)(e, key)
	c.Web.URL = strings.TrimRight(c.Web.URL, "/")
	if err := c.Web.Check(); err != nil {
		e.fail(key, "%v", err)
	}
}

// readMCPServers reads the MCP servers of the file MCP_SERVERS names.
func (c *Config) readMCPServers(e *env, key string) {
	path := e.str(key, "")
	if path == "" {
		return
	}
	servers, err := mcptools.Load(path)
	if err != nil {
		e.fail(key, "%s: %v", path, err)
	}
	c.MCPServers = servers
}

// readApprovals reads APPROVAL_REQUIRED_TOOLS, the tools whose calls wait
// for a person's approval, checked against the built-in tools.
func (c *Config) readApprovals(e *env, key string) {
	if e.str(key, "") == "" { // the default
		e.note(key, strings.Join(slices.Sorted(maps.Keys(c.Agent.NeedsApproval)), ","), false)
		return
	}
	names := e.list(key, "")
	c.Agent.NeedsApproval = map[string]bool{}
	for _, name := range names {
		if !slices.Contains(tools.Names(), name) {
			e.fail(key, "there is no tool %q (the tools: %s; or none)", name, strings.Join(tools.Names(), ", "))
		}
		c.Agent.NeedsApproval[name] = true
	}
}

func (c *Config) readLogLevel(e *env, key string) {
	level := e.str(key, c.Log.Level.String())
	if err := c.Log.Level.UnmarshalText([]byte(level)); err != nil {
		e.fail(key, "must be debug, info, warn or error, got %q", level)
	}
}

// webhookSecretChars are the characters Telegram allows in a secret_token.
var webhookSecretChars = regexp.MustCompile(`^[A-Za-z0-9_-]{1,256}$`)

// checkWebhook checks the intake settings: webhook mode needs a public
// https URL, since Telegram posts only there.
func (c *Config) checkWebhook(e *env) {
	if c.Intake.Mode != inbox.ModeWebhook {
		return
	}
	raw := c.Intake.WebhookURL
	if raw == "" {
		e.fail("WEBHOOK_URL", "is required when MODE=webhook: the public https URL Telegram posts updates to")
		return
	}
	// Telegram's own servers post only to https; a self-hosted Bot API
	// server (TELEGRAM_API_URL) also posts to http.
	selfHosted := !strings.HasPrefix(c.Telegram.APIURL, telegram.DefaultAPIURL)
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && !(selfHosted && u.Scheme == "http")) {
		e.fail("WEBHOOK_URL", "must be a public https URL such as https://bot.example.com/telegram (http only with a self-hosted Bot API server, TELEGRAM_API_URL), got %q", redact.URL(raw))
		return
	}
	if c.Intake.WebhookSecret != "" && !webhookSecretChars.MatchString(c.Intake.WebhookSecret) {
		e.fail("WEBHOOK_SECRET", "must be 1-256 characters of A-Z, a-z, 0-9, _ and -")
	}
	if (c.Intake.WebhookTLSCert == "") != (c.Intake.WebhookTLSKey == "") {
		e.fail("WEBHOOK_TLS_CERT", "and WEBHOOK_TLS_KEY must be set together (or neither, when a proxy terminates TLS)")
	}
}

// readModes reads MODES_FILE into the modes: the built-in ones (on
// SYSTEM_PROMPT) and those of the file.
func (c *Config) readModes(e *env, key string) {
	c.ModesFile = e.str(key, "")
	var extra []modes.Mode
	if c.ModesFile != "" {
		var err error
		if extra, err = modes.ReadFile(c.ModesFile); err != nil {
			e.fail(key, "%v", err)
			return
		}
	}
	set, err := modes.New(c.Agent.SystemPrompt, extra)
	if err != nil {
		e.fail(key, "%s: %v", c.ModesFile, err)
	}
	c.Agent.Modes = set
}

// readModels reads MODELS: entries separated by commas, each a model name
// followed, after spaces, by an optional http(s) base URL and flags, e.g.
// "gpt-4o-mini, llama3.1:8b http://localhost:11434/v1 no-stream-options".
// The default model (OPENAI_MODEL) comes first whether listed or not.
func (c *Config) readModels(e *env, key string) {
	baseURL := c.LLM.Chat.BaseURL
	models := []ModelSetting{{Model: agent.Model{Name: c.Agent.Model}, BaseURL: baseURL}}
	for _, entry := range e.list(key, "") {
		fields := strings.Fields(entry)
		m := ModelSetting{Model: agent.Model{Name: fields[0]}, BaseURL: baseURL}
		var flags []string
		for _, f := range fields[1:] {
			if strings.HasPrefix(f, "http://") || strings.HasPrefix(f, "https://") {
				u, err := url.Parse(f)
				if err != nil || u.Host == "" {
					e.fail(key, "%q: %q is not a URL", redact.URLs(entry), redact.URL(f))
				}
				m.BaseURL = strings.TrimRight(f, "/")
				continue
			}
			flags = append(flags, f)
		}
		caps, err := agent.ParseCapabilities(flags)
		if err != nil {
			e.fail(key, "%q: %v", redact.URLs(entry), err)
		}
		m.Caps = caps
		if i := slices.IndexFunc(models, func(x ModelSetting) bool { return x.Name == m.Name }); i >= 0 {
			models[i] = m
			continue
		}
		models = append(models, m)
	}
	c.LLM.Models = models
}

// secretSetting is a setting whose whole value is a secret, and the
// field it is read into.
type secretSetting struct {
	name  string
	value *string
}

// secretSettings are the settings whose whole value is a secret, the one
// list of them: start-up errors hide what they are set to (env.secrets),
// the running bot what its fields hold (Secrets), and the web's settings
// page shows none of them (ShownSettings). A new setting that holds a
// secret is added here. The URL settings may hold one too, in their
// credentials or query (redact.URLs takes those out by their place in
// the URL).
func (c *Config) secretSettings() []secretSetting {
	return []secretSetting{
		{"TELEGRAM_BOT_TOKEN", &c.Telegram.Token},
		{"WEBHOOK_SECRET", &c.Intake.WebhookSecret},
		{"OPENAI_API_KEY", &c.LLM.Chat.APIKey},
		{"TRANSCRIPTION_API_KEY", &c.LLM.Transcription.APIKey},
		{"TTS_API_KEY", &c.LLM.Speech.APIKey},
		{"EMBEDDINGS_API_KEY", &c.LLM.Embeddings.APIKey},
		{"IMAGE_API_KEY", &c.LLM.Images.APIKey},
		{"BRAVE_API_KEY", &c.WebSearch.BraveAPIKey},
		{"TAVILY_API_KEY", &c.WebSearch.TavilyAPIKey},
	}
}

// isSecret tells whether the setting called name is one of secretSettings.
func isSecret(name string) bool {
	return slices.ContainsFunc((&Config{}).secretSettings(), func(s secretSetting) bool { return s.name == name })
}

// Secrets is every secret among the settings: those of secretSettings
// (the bot token, the model servers' and the web search providers' keys,
// the webhook's secret), the MCP servers' headers, environment and URLs,
// and the credentials and query of every URL setting. The log's writer
// and the store take them out of whatever they write. (The database's
// password is not: it never reaches an error of a server, and a short
// one, "membot", would blank out ordinary words.)
func (c *Config) Secrets() *redact.Secrets {
	var values []string
	for _, s := range c.secretSettings() {
		values = append(values, *s.value)
	}
	for _, s := range c.MCPServers {
		values = append(values, s.Secrets()...)
	}
	urls := []string{c.Telegram.APIURL, c.Intake.WebhookURL, c.LLM.Chat.BaseURL, c.LLM.Transcription.BaseURL, c.LLM.Speech.BaseURL,
		c.LLM.Embeddings.BaseURL, c.LLM.Images.BaseURL, c.WebSearch.SearXNGURL, c.WebSearch.BraveURL, c.WebSearch.TavilyURL}
	for _, m := range c.LLM.Models {
		urls = append(urls, m.BaseURL)
	}
	for _, u := range urls {
		values = append(values, redact.URLSecrets(u)...)
	}
	return redact.New(values...)
}

// secretSuffixes end the names of the settings whose value is a secret,
// whatever else Secrets knows.
var secretSuffixes = []string{"_KEY", "_TOKEN", "_SECRET", "PASSWORD"}

// ShownSettings is every setting as it was read, in the table's order,
// for the web's settings page: a secret setting's value (secretSettings,
// a name ending as secretSuffixes) is hidden whole, and any other's
// loses what Secrets holds and every URL's credentials and query.
func (c *Config) ShownSettings() []web.Setting {
	secrets := c.Secrets()
	var out []web.Setting
	for _, s := range c.settings() {
		seen := c.seen[s.name]
		shown := web.Setting{Name: s.name, Set: seen.set, Value: secrets.String(redact.URLs(seen.value))}
		// A DATABASE_URL in key=value form (password=...) has no URL
		// credentials to take out: it is hidden whole.
		keyValueDSN := s.name == "DATABASE_URL" && !strings.Contains(seen.value, "://")
		if seen.value != "" && (keyValueDSN || isSecret(s.name) ||
			slices.ContainsFunc(secretSuffixes, func(suffix string) bool { return strings.HasSuffix(s.name, suffix) })) {
			shown.Value, shown.Hidden = "", true
		}
		out = append(out, shown)
	}
	return out
}
