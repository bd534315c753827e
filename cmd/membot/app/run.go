// Package app is the membot program without its command line: the settings
// and the wiring of a running bot. cmd/membot runs it, and so does
// cmd/membench, so that the benchmark measures the production code path.
package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/agent/llm"
	"github.com/membot/membot/bot"
	"github.com/membot/membot/bot/inbox"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/internal/backoff"
	"github.com/membot/membot/internal/metrics"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/purge"
	"github.com/membot/membot/migrations"
)

// Run wires the bot together and runs it until ctx ends, then shuts down:
// intake stops at once, turns in flight get ShutdownTimeout to finish.
func Run(ctx context.Context, cfg *Config, log *slog.Logger) error {
	log.Info("membot starting", append([]any{"mode", cfg.Intake.Mode, "model", cfg.Agent.Model, "llm", cfg.LLM.Chat.BaseURL, "timezone", cfg.Location.String(),
		"history_limit", cfg.Agent.HistoryLimit, "context_tokens", cfg.Agent.ContextTokens, "max_answer_tokens", cfg.Agent.MaxAnswerTokens,
		"models", len(cfg.LLM.Models), "workers", cfg.Intake.Workers, "streaming", cfg.Bot.Streaming, "assistant_modes", len(cfg.Agent.Modes.List()),
		"database", databaseKind(cfg)}, accessAttrs(cfg)...)...)
	if len(cfg.Bot.Access.AllowedUsers) == 0 && len(cfg.Bot.Access.AllowedChats) == 0 {
		log.Warn("the bot is open to everyone: set ALLOWED_USER_IDS (or ALLOWED_CHAT_IDS) to choose who may use it")
	}

	dsn, stopDatabase, err := Database(ctx, cfg.Database, log)
	if err != nil {
		return startErr(ctx, err)
	}
	defer stopDatabase() // after the store closes

	// Until the database answers there is nothing to do; wait for it rather
	// than crash-loop (in docker compose it often starts a moment later).
	if err := untilDone(ctx, log, "apply migrations", func() error {
		applied, err := migrations.Up(ctx, dsn)
		for _, name := range applied {
			log.Info("migration applied", "file", name)
		}
		return err
	}); err != nil {
		return startErr(ctx, err)
	}
	var store *memory.Store
	if err := untilDone(ctx, log, "open database", func() (err error) {
		store, err = memory.Open(ctx, dsn, poolSize(cfg.Intake.Workers), cfg.ConfigurePool)
		return err
	}); err != nil {
		return startErr(ctx, err)
	}
	defer store.Close()
	changed, warnings, err := store.PrepareAdminViews(ctx, cfg.Location.String())
	if err != nil {
		warnings = append(warnings, err.Error()) // the views are a convenience: go on
	}
	for _, w := range warnings {
		log.Warn(w)
	}
	if changed {
		log.Info("the admin views now show times in TIMEZONE", "timezone", cfg.Location.String())
	}

	met := metrics.New()
	met.WatchPool(store.Pool().Stat)
	met.WatchInbox(func(ctx context.Context) (metrics.Backlog, error) {
		b, err := store.InboxBacklog(ctx)
		return metrics.Backlog(b), err
	})

	// work outlives ctx by up to ShutdownTimeout so turns in flight can finish.
	work, abandon := context.WithCancel(context.WithoutCancel(ctx))
	defer abandon()
	lockCtx, releaseLock := context.WithCancel(work)
	owner := store.HoldOwnerLock(lockCtx, log)
	defer func() { releaseLock(); owner.Wait() }()

	transport := pooledTransport(cfg.Intake.Workers)
	tc := cfg.Telegram
	tc.Metrics, tc.Transport = met, transport
	client := telegram.NewClient(work, ctx, tc)
	waiting := whileWaiting(log, "still waiting for Telegram to answer getMe: check the network and TELEGRAM_API_URL", "api", cfg.Telegram.APIURL)
	err = client.Connect(ctx)
	waiting()
	if err != nil {
		if apiErr, ok := telegram.APIError(err); ok && apiErr.Code == http.StatusUnauthorized {
			return &ConfigError{"TELEGRAM_BOT_TOKEN: Telegram rejected it (401 Unauthorized)"}
		}
		return startErr(ctx, fmt.Errorf("connect to Telegram: %w", err))
	}
	log.Info("connected to Telegram", "bot", client.Self.UserName)
	// The inbox knows updates by bot: what was stored before it did is this bot's.
	if n, err := store.AdoptUpdates(ctx, client.Self.ID); err != nil {
		return err
	} else if n > 0 {
		log.Info("updates stored before the inbox knew bots are this bot's", "bot_id", client.Self.ID, "updates", n)
	}
	if err := bot.SetCommandMenu(ctx, client); err != nil {
		log.Warn("registering the command menu with Telegram failed; the commands work without it", "err", err)
	}

	stuck := &inbox.Stuck{After: cfg.Intake.BlockedAfter}
	met.WatchBlockedChats(stuck.Count)
	if cfg.Metrics.Addr != "" {
		checks := []metrics.Check{
			{Name: "chats", Probe: stuck.Check},
			{Name: "database", Probe: store.Ping},
			{Name: "telegram", Probe: client.Reachable},
			{Name: "intake", Probe: func(context.Context) error { return context.Cause(ctx) }}, // not ready once shutting down
			met.ModelCheck(), // a model server that fails every call
		}
		srv, err := startServer(log, "metrics", cfg.Metrics.Addr, met.Handler(checks...), "", "")
		if err != nil {
			return err
		}
		defer srv.stop()
	}

	llmHTTP := &http.Client{Transport: transport}
	embedder := startRecall(ctx, cfg, store, llmHTTP, log)
	reminders := &bot.Scheduler{Queue: store, Client: client, Owner: owner.ID, Location: cfg.Location, Log: log}
	purger := &purge.Purger{Queue: store, Log: log, Retention: cfg.Retention}
	toolEnv := cfg.Tools
	toolEnv.Store, toolEnv.ReminderAdded, toolEnv.Embedder = store, reminders.Wake, embedder
	tools := agent.NewRegistry(agent.BuiltinTools(toolEnv)...)
	if cfg.Tools.FetchAllowPrivate {
		log.Warn("FETCH_ALLOW_PRIVATE is on: fetch_url may reach loopback and private addresses")
	}
	newClient := func(baseURL string) *llm.Client {
		return &llm.Client{BaseURL: baseURL, APIKey: cfg.LLM.Chat.APIKey, HTTP: llmHTTP, Limits: llm.Limits{
			Idle: cfg.LLM.Idle, AnswerBytes: 16 * cfg.Agent.MaxAnswerTokens}}
	}
	var models []agent.Model
	for _, m := range cfg.LLM.Models {
		models = append(models, agent.Model{Name: m.Name, LLM: newClient(m.BaseURL), Caps: m.Caps})
	}
	memorizer := &agent.Memorizer{Store: store, LLM: newClient(cfg.LLM.Chat.BaseURL), Embedder: embedder, MemoryConfig: cfg.Memory,
		HistoryLimit: cfg.Agent.HistoryLimit, Settle: 2 * time.Second, Location: cfg.Location, Log: log}
	ac := cfg.Agent
	ac.Models, ac.Metrics, ac.Files = models, met, bot.ImageFiles{Client: client}
	ac.Transcriber = &llm.Client{BaseURL: cfg.LLM.Transcription.BaseURL, APIKey: cfg.LLM.Transcription.APIKey, HTTP: llmHTTP}
	ac.Speaker = &llm.Client{BaseURL: cfg.LLM.Speech.BaseURL, APIKey: cfg.LLM.Speech.APIKey, HTTP: llmHTTP}
	ac.Embedder, ac.TurnDone = embedder, memorizer.Wake
	turns := agent.New(store, newClient(cfg.LLM.Chat.BaseURL), tools, ac, log)

	dispatcher := &inbox.Dispatcher{
		Queue: store,
		Handler: &bot.Handler{Client: client, Agent: turns, Memory: store, Log: log, Metrics: met,
			Modes: cfg.Agent.Modes, Models: turns.Models(), ConversationsReset: purger.Wake, Config: cfg.Bot},
		Owner:     owner.ID,
		Workers:   cfg.Intake.Workers,
		Sweep:     5 * time.Second,
		Log:       log,
		Transient: bot.Transient,
		Stuck:     stuck,
		Metrics:   met,
	}

	var wg sync.WaitGroup
	// The dispatcher stores what intake receives: it claims the chats it can
	// in the same round trip and starts their workers, so needs no Notify.
	if cfg.Intake.Mode == "webhook" {
		// Updates stored before the dispatcher runs are found by its first sweep.
		hook, err := startWebhook(ctx, cfg, log, client, dispatcher, nil, met)
		if err != nil {
			return err
		}
		wg.Add(1)
		go func() { defer wg.Done(); <-ctx.Done(); hook.stop() }() // intake stops at once
	} else {
		poller := &inbox.Poller{Client: client, Inbox: dispatcher, Timeout: cfg.Telegram.PollTimeout, Metrics: met, Log: log}
		wg.Add(1)
		go func() { defer wg.Done(); poller.Run(ctx) }()
	}
	wg.Add(4)
	go func() { defer wg.Done(); memorizer.Run(ctx) }() // its progress is in the database: it stops at once
	go func() { defer wg.Done(); dispatcher.Run(ctx, work) }()
	go func() { defer wg.Done(); reminders.Run(ctx, work) }()
	go func() { defer wg.Done(); purger.Run(ctx) }()
	log.Info("membot is running")

	<-ctx.Done()
	log.Info("shutting down: no new updates; waiting for turns in flight", "timeout", cfg.ShutdownTimeout)
	stopped := make(chan struct{})
	go func() { wg.Wait(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(cfg.ShutdownTimeout):
		log.Warn("turns still in flight at the shutdown deadline; they will be taken up again at the next start")
		abandon()
		<-stopped
	}
	log.Info("membot stopped")
	return nil
}

// startRecall says, once, how recall works, and returns the embedder of
// EMBEDDINGS_MODEL when the database can keep embeddings (pgvector), or nil.
func startRecall(ctx context.Context, cfg *Config, store *memory.Store, hc *http.Client, log *slog.Logger) agent.Embedder {
	if cfg.Memory.EmbeddingsModel == "" {
		log.Info("recall: full-text search alone (set EMBEDDINGS_MODEL for semantic recall)", "auto_recall", cfg.Agent.Recall, "auto_memory", cfg.Memory.AutoMemory)
		return nil
	}
	ok, err := store.EnableVectors(ctx)
	if err != nil || !ok {
		log.Warn("recall: full-text search alone: the database has no pgvector (CREATE EXTENSION vector as a superuser, then restart)",
			"embeddings_model", cfg.Memory.EmbeddingsModel, "err", err)
		return nil
	}
	log.Info("recall: full-text and semantic search", "embeddings_model", cfg.Memory.EmbeddingsModel, "auto_recall", cfg.Agent.Recall, "auto_memory", cfg.Memory.AutoMemory)
	return agent.NewEmbedder(cfg.LLM.Embeddings.BaseURL, cfg.LLM.Embeddings.APIKey, cfg.Memory.EmbeddingsModel, hc)
}

// startErr is err, or nil when a stop was asked for during start-up (the
// step failed because it was cancelled).
func startErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// startWebhook serves the webhook on WEBHOOK_LISTEN, at WEBHOOK_URL's path,
// and then registers WEBHOOK_URL with Telegram, so that the first update
// Telegram posts finds the server up. Every replica registers the same URL
// and secret, so starting one more never disturbs the others.
func startWebhook(ctx context.Context, cfg *Config, log *slog.Logger, client *telegram.Client, store inbox.Inbox,
	notify func([]int64), met inbox.Metrics) (*server, error) {
	secret := cfg.Intake.WebhookSecret
	if secret == "" {
		secret = inbox.DefaultWebhookSecret(cfg.Telegram.Token)
	}
	path := "/"
	if u, err := url.Parse(cfg.Intake.WebhookURL); err == nil && u.Path != "" {
		path = u.Path
	}
	mux := http.NewServeMux()
	mux.Handle(path, &inbox.Webhook{Inbox: store, Notify: notify, Secret: secret, Metrics: met, Log: log})
	srv, err := startServer(log, "webhook", cfg.Intake.WebhookListen, mux, cfg.Intake.WebhookTLSCert, cfg.Intake.WebhookTLSKey)
	if err != nil {
		return nil, err
	}
	if err := client.SetWebhook(ctx, cfg.Intake.WebhookURL, secret); err != nil {
		srv.stop()
		return nil, fmt.Errorf("register the webhook: %w", err)
	}
	log.Info("webhook registered with Telegram", "url", cfg.Intake.WebhookURL, "path", path)
	return srv, nil
}

// untilDone retries fn while the database is unreachable, with backoff.
func untilDone(ctx context.Context, log *slog.Logger, what string, fn func() error) error {
	wait := backoff.New(500*time.Millisecond, 15*time.Second)
	for {
		err := fn()
		if err == nil || ctx.Err() != nil {
			return err
		}
		if !memory.IsUnavailable(err) {
			return err // fn's error says what failed: wrapped again, it said so twice
		}
		log.Warn("database unreachable; retrying", "step", what, "err", err, "retry_in", wait.Peek())
		if !wait.Sleep(ctx) {
			return ctx.Err()
		}
	}
}

// NewLogger is the program's logger, as LOG_LEVEL and LOG_FORMAT say.
func NewLogger(cfg *Config, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.Log.Level}
	if cfg.Log.Format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// pooledTransport keeps an idle connection for everything the workers do at
// once (a model call, a message and "typing…" each) and for polling: Go's
// default keeps two per host, so under load most requests to Telegram and
// to the model dialled anew (over HTTPS, with a TLS handshake each time).
func pooledTransport(workers int) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 2*workers + 4
	t.MaxIdleConns = 2 * t.MaxIdleConnsPerHost
	return t
}

// poolSize is how many connections the bot may open. A turn holds one only
// for the moment of a batch, never while the model thinks, so a few dozen
// serve any number of workers; one per worker would pass PostgreSQL's
// max_connections (100 by default) with a large WORKERS.
func poolSize(workers int) int32 { return int32(min(workers, 32) + 4) }
