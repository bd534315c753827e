package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/bot"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/migrations"
)

// runBot wires the bot together and runs it until ctx ends, then shuts down:
// intake stops at once, turns in flight get ShutdownTimeout to finish.
func runBot(ctx context.Context, cfg *config, log *slog.Logger) error {
	log.Info("membot starting", "model", cfg.OpenAIModel, "llm", cfg.OpenAIBaseURL, "timezone", cfg.Location.String(),
		"history_limit", cfg.HistoryLimit, "workers", cfg.Workers)

	// Until the database answers there is nothing to do; wait for it rather
	// than crash-loop (in docker compose it often starts a moment later).
	if err := untilDone(ctx, log, "apply migrations", func() error {
		_, err := migrations.Up(ctx, cfg.DatabaseURL)
		return err
	}); err != nil {
		return startErr(ctx, err)
	}
	var store *memory.Store
	if err := untilDone(ctx, log, "open database", func() (err error) {
		store, err = memory.Open(ctx, cfg.DatabaseURL, int32(cfg.Workers+4))
		return err
	}); err != nil {
		return startErr(ctx, err)
	}
	defer store.Close()

	// work outlives ctx by up to ShutdownTimeout so turns in flight can finish.
	work, abandon := context.WithCancel(context.WithoutCancel(ctx))
	defer abandon()
	lockCtx, releaseLock := context.WithCancel(work)
	owner := store.HoldOwnerLock(lockCtx, log)
	defer func() { releaseLock(); owner.Wait() }()

	client := bot.NewClient(work, ctx, bot.ClientConfig{Token: cfg.TelegramToken, APIURL: cfg.TelegramAPIURL,
		PollTimeout: cfg.PollTimeout, RateLimit: cfg.TelegramRateLimit})
	if err := client.Connect(ctx); err != nil {
		if apiErr, ok := bot.APIError(err); ok && apiErr.Code == http.StatusUnauthorized {
			return &configError{"TELEGRAM_BOT_TOKEN: Telegram rejected it (401 Unauthorized)"}
		}
		return startErr(ctx, fmt.Errorf("connect to Telegram: %w", err))
	}
	log.Info("connected to Telegram", "bot", client.Self.UserName)

	llmCfg := openai.DefaultConfig(cfg.OpenAIKey)
	llmCfg.BaseURL = cfg.OpenAIBaseURL
	tools := agent.NewRegistry(agent.BuiltinTools(agent.ToolEnv{Location: cfg.Location})...)
	turns := agent.New(store, openai.NewClientWithConfig(llmCfg), tools, agent.Config{
		Model: cfg.OpenAIModel, SystemPrompt: cfg.SystemPrompt, HistoryLimit: cfg.HistoryLimit,
		Location: cfg.Location, Retry: agent.RetryPolicy{Timeout: cfg.LLMTimeout},
	}, log)

	dispatcher := &bot.Dispatcher{
		Queue:   store,
		Handler: &bot.Handler{Client: client, Agent: turns, Memory: store, Log: log},
		Owner:   owner.ID,
		Workers: cfg.Workers,
		Sweep:   5 * time.Second,
		Log:     log,
	}
	poller := &bot.Poller{Client: client, Inbox: store, Notify: dispatcher.Notify, Timeout: cfg.PollTimeout, Log: log}

	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); dispatcher.Run(ctx, work) }()
	go func() { defer wg.Done(); poller.Run(ctx) }()
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

// startErr is err, or nil when a stop was asked for during start-up (the
// step failed because it was cancelled).
func startErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// untilDone retries fn while the database is unreachable, with backoff.
func untilDone(ctx context.Context, log *slog.Logger, what string, fn func() error) error {
	wait := 500 * time.Millisecond
	for {
		err := fn()
		if err == nil || ctx.Err() != nil {
			return err
		}
		if !memory.IsUnavailable(err) {
			return fmt.Errorf("%s: %w", what, err)
		}
		log.Warn("database unreachable; retrying", "step", what, "err", err, "retry_in", wait)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(wait*2, 15*time.Second)
	}
}
