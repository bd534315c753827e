// Package app is the membot program without its command line: the settings
// and the wiring of a running bot. cmd/membot runs it, and so does
// cmd/membench, so that the benchmark measures the production code path.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/agent/images"
	"github.com/membot/membot/agent/llm"
	"github.com/membot/membot/agent/mcptools"
	"github.com/membot/membot/agent/memorize"
	"github.com/membot/membot/agent/tools"
	"github.com/membot/membot/agent/websearch"
	"github.com/membot/membot/bot"
	"github.com/membot/membot/bot/access"
	"github.com/membot/membot/bot/draw"
	"github.com/membot/membot/bot/gate"
	"github.com/membot/membot/bot/inbox"
	"github.com/membot/membot/bot/media"
	"github.com/membot/membot/bot/remind"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/internal/filetext"
	"github.com/membot/membot/internal/metrics"
	"github.com/membot/membot/internal/netcause"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/console"
	"github.com/membot/membot/memory/purge"
	"github.com/membot/membot/memory/queue"
	"github.com/membot/membot/memory/userdata"
	"github.com/membot/membot/migrations"
	"github.com/membot/membot/web"
)

// Run wires the bot together and runs it until ctx ends, then shuts down:
// intake stops at once, turns in flight get ShutdownTimeout to finish.
// Each step of start-up makes a part of the bot from the ones before.
func Run(ctx context.Context, cfg *Config, log *slog.Logger) error {
	logStart(cfg, log)
	m := &membot{cfg: cfg, log: log, met: metrics.New(), intake: ctx}
	defer m.close()
	for _, step := range []func() error{m.openStore, m.connectTelegram, m.announceAccess, m.serveMetrics, m.newHandler, m.serveWeb, m.startIntake} {
		if err := step(); errors.Is(err, errStopped) {
			return nil
		} else if err != nil {
			return err
		}
	}
	log.Info("membot is running")
	<-ctx.Done()
	m.shutdown()
	return nil
}

// membot is a running bot: the parts Run's steps make, and what to undo
// when it stops.
type membot struct {
	cfg *Config
	log *slog.Logger
	met *metrics.Metrics
	// intake ends when a stop is asked for; work outlives it by up to
	// ShutdownTimeout so that turns in flight can finish.
	intake, work context.Context
	abandon      context.CancelFunc
	undo         []func() // by close, the last first

	store     *memory.Store
	owner     *queue.OwnerLock
	transport *http.Transport
	client    *telegram.Client
	stuck     *inbox.Stuck
	handler   *bot.Handler
	memorizer *memorize.Memorizer
	reminders *remind.Scheduler
	purger    *purge.Purger
	web       *web.Server
	mcpTried  <-chan struct{} // closed once every MCP server was tried once; nil without servers
	running   sync.WaitGroup  // what startIntake started
}

// errStopped is a step of start-up that failed because a stop was asked
// for: Run returns nil.
var errStopped = errors.New("stopped during start-up")

// startErr is err, or errStopped when a stop was asked for during
// start-up (the step failed because it was cancelled).
func startErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return errStopped
	}
	return err
}

// close undoes what the steps did, the last first.
func (m *membot) close() {
	for i := len(m.undo) - 1; i >= 0; i-- {
		m.undo[i]()
	}
}

// openStore opens the database (starting the embedded one when
// DATABASE_URL is unset), migrates it, and holds this process's owner lock.
func (m *membot) openStore() error {
	ctx, cfg, log := m.intake, m.cfg, m.log
	dsn, stopDatabase, err := Database(ctx, cfg.Database, log)
	if err != nil {
		return startErr(ctx, err)
	}
	m.undo = append(m.undo, stopDatabase) // after the store closes

	// Until the database answers there is nothing to do; wait for it rather
	// than crash-loop (in docker compose it often starts a moment later).
	if err := untilDone(ctx, log, "apply migrations", func() error {
		applied, err := migrations.Up(ctx, dsn)
		if line := migrations.Summary(applied); line != "" {
			log.Info(line)
		}
		return err
	}); err != nil {
		return startErr(ctx, err)
	}
	if err := untilDone(ctx, log, "open database", func() (err error) {
		m.store, err = memory.Open(ctx, dsn, poolSize(cfg.Intake.Workers), cfg.ConfigurePool)
		return err
	}); err != nil {
		return startErr(ctx, err)
	}
	m.undo = append(m.undo, m.store.Close)
	m.store.HideSecrets(cfg.Secrets()) // out of every error, event and message it stores
	changed, warnings, err := userdata.New(m.store.Pool()).PrepareAdminViews(ctx, cfg.Location.String())
	if err != nil {
		warnings = append(warnings, err.Error()) // the views are a convenience: go on
	}
	for _, w := range warnings {
		log.Warn(w)
	}
	if changed {
		log.Info("the admin views now show times in TIMEZONE", "timezone", cfg.Location.String())
	}
	m.met.WatchPool(m.store.Pool().Stat)
	m.met.WatchInbox(func(ctx context.Context) (metrics.Backlog, error) {
		b, err := m.store.Inbox().InboxBacklog(ctx)
		return metrics.Backlog(b), err
	})

	m.work, m.abandon = context.WithCancel(context.WithoutCancel(ctx))
	m.undo = append(m.undo, m.abandon)
	lockCtx, releaseLock := context.WithCancel(m.work)
	m.owner = m.store.Inbox().HoldOwnerLock(lockCtx, log)
	m.undo = append(m.undo, func() { releaseLock(); m.owner.Wait() })
	return nil
}

// connectTelegram makes the Telegram client and checks the token with it.
func (m *membot) connectTelegram() error {
	ctx, cfg, log := m.intake, m.cfg, m.log
	m.transport = pooledTransport(cfg.Intake.Workers)
	tc := cfg.Telegram
	tc.Metrics, tc.Transport = m.met, m.transport
	m.client = telegram.NewClient(m.work, ctx, tc)
	waiting := whileWaiting(log, "still waiting for Telegram to answer getMe", func() string {
		if err := m.client.LastError(); err != nil {
			return netcause.Explain(err, TelegramService).String()
		}
		return "no answer yet: check the network and TELEGRAM_API_URL"
	}, "api", cfg.Telegram.APIURL)
	err := m.client.Connect(ctx)
	waiting()
	if err != nil {
		if cause := netcause.Explain(err, TelegramService); cause.Kind == netcause.Unauthorized {
			return &ConfigError{"TELEGRAM_BOT_TOKEN: " + cause.What + ": copy it again from @BotFather"}
		}
		return startErr(ctx, fmt.Errorf("connect to Telegram: %w", err))
	}
	log.Info("connected to Telegram", "bot", m.client.Self.UserName)
	// The inbox knows updates by bot: what was stored before it did is this bot's.
	if n, err := m.store.Inbox().AdoptUpdates(ctx, m.client.Self.ID); err != nil {
		return err
	} else if n > 0 {
		log.Info("updates stored before the inbox knew bots are this bot's", "bot_id", m.client.Self.ID, "updates", n)
	}
	if err := bot.SetCommandMenu(ctx, m.client); err != nil {
		log.Warn("registering the command menu with Telegram failed; the commands work without it", "err", err)
	}
	return nil
}

// announceAccess says whom the bot serves and, while it waits for its
// owner, the claim link (gate.ClaimStatus, which `membot doctor`
// shows too).
func (m *membot) announceAccess() error {
	st, err := gate.ClaimStatus(m.intake, &m.cfg.Bot.Access, m.store.Access(), m.client.Self.UserName)
	if err != nil {
		return startErr(m.intake, fmt.Errorf("access: %w", err))
	}
	st.Log(m.log)
	return nil
}

// serveMetrics serves /healthz, /readyz and /metrics on METRICS_ADDR, when set.
func (m *membot) serveMetrics() error {
	m.stuck = &inbox.Stuck{After: m.cfg.Intake.BlockedAfter}
	m.met.WatchBlockedChats(m.stuck.Count)
	if m.cfg.Metrics.Addr == "" {
		return nil
	}
	checks := []metrics.Check{
		{Name: "chats", Probe: m.stuck.Check},
		{Name: "database", Probe: m.store.Ping},
		{Name: "telegram", Probe: m.client.Reachable},
		{Name: "intake", Probe: func(context.Context) error { return context.Cause(m.intake) }}, // not ready once shutting down
		m.met.ModelCheck(), // a model server that fails every call
	}
	srv, err := startServer(m.log, "metrics", m.cfg.Metrics.Addr, m.met.Handler(checks...), "", "")
	if err != nil {
		return err
	}
	m.undo = append(m.undo, srv.stop)
	return nil
}

// newHandler builds the parts that answer updates, each from the ones
// before: the model servers' clients, the background work the tools
// wake, the tools, the memory work, the agent, the web interface, and the
// handler that answers updates with them.
func (m *membot) newHandler() error {
	cfg, log, store := m.cfg, m.log, m.store
	servers := m.modelServers()
	m.reminders = &remind.Scheduler{Config: cfg.Reminders, Queue: store.Reminders(), Client: m.client, Owner: m.owner.ID, Log: log}
	m.purger = &purge.Purger{Queue: purge.NewStore(store.Pool()), Log: log, Retention: cfg.Retention}
	painter := m.newPainter(servers)
	registry, mcpServers := m.newTools(servers, painter)
	m.memorizer = m.newMemorizer(servers, registry)
	turns := m.newAgent(servers, registry)
	users := userdata.New(store.Pool())
	// The web's decisions on requests tell the asker as the owner's buttons
	// do, and who may use it is the gate's rule: both are the handler's.
	m.web = newWeb(cfg, store, users, mcpServers, func(ctx context.Context, req memory.AccessRequest, status string) {
		m.handler.TellAsker(ctx, req, status)
	}, func(ctx context.Context, userID int64) (bool, bool, error) { return m.handler.Serves(ctx, userID) }, log)
	stores := bot.Stores{
		Access: store.Access(), Conversations: store, Choices: store.Choices(), Approvals: store.Approvals(),
		Facts: store.LongTerm(), Reminders: store.Reminders(), Events: store.Events(), Inbox: store.Inbox(),
		Usage: users, Transcripts: users,
	}
	m.handler = &bot.Handler{Client: m.client, Agent: turns, Stores: stores, Log: log, Metrics: m.met,
		Modes: cfg.Agent.Modes, Models: turns.Models(), ConversationsReset: m.purger.Wake, MCPServers: mcpServers, Web: m.web, Config: cfg.Bot, Images: painter,
		Files: filetext.New(filetext.Config{})}
	return nil
}

// servers are the clients of the model servers, all over the one pooled
// transport.
type servers struct {
	chat                          *llm.Client          // OPENAI_BASE_URL: the default model's, and the memory work's
	models                        map[string]agent.LLM // each model of MODELS at its base URL
	transcription, speech, images *llm.Client
	embedder                      agent.Embedder // nil: recall is full-text alone
}

// modelServers makes the clients of the model servers the settings name.
func (m *membot) modelServers() servers {
	cfg := m.cfg
	hc := &http.Client{Transport: m.transport}
	chat := func(baseURL string) *llm.Client {
		return &llm.Client{BaseURL: baseURL, APIKey: cfg.LLM.Chat.APIKey, HTTP: hc, Limits: llm.Limits{
			Idle: cfg.LLM.Idle, AnswerBytes: 16 * cfg.Agent.MaxAnswerTokens}}
	}
	other := func(s llm.Server) *llm.Client { return &llm.Client{BaseURL: s.BaseURL, APIKey: s.APIKey, HTTP: hc} }
	s := servers{chat: chat(cfg.LLM.Chat.BaseURL), models: map[string]agent.LLM{},
		transcription: other(cfg.LLM.Transcription), speech: other(cfg.LLM.Speech), images: other(cfg.LLM.Images),
		embedder: startRecall(m.intake, cfg, m.store, hc, m.log)}
	for _, model := range cfg.LLM.Models {
		s.models[model.Name] = chat(model.BaseURL)
	}
	return s
}

// newPainter makes what draws pictures (/image, generate_image).
func (m *membot) newPainter(s servers) *images.Painter {
	cfg := m.cfg
	painter := &images.Painter{Config: cfg.Images, Server: s.images, Sender: draw.Photos{Client: m.client}, Store: m.store.Pictures(), Turns: m.store,
		Budget: pictureBudget(&cfg.Bot.Access)}
	if painter.On() {
		m.log.Info("pictures are on: /image and generate_image", "image_model", cfg.Images.Model, "tokens_per_image", cfg.Images.TokensPerImage)
	}
	return painter
}

// newTools makes the tools the model is offered: the built-in ones and
// the MCP servers', which start here and stop with the work. It returns
// the servers' states too, nil without servers.
func (m *membot) newTools(s servers, painter *images.Painter) (*agent.Registry, func() []mcptools.Status) {
	cfg, store, log := m.cfg, m.store, m.log
	env := cfg.Tools
	env.Facts, env.History, env.Reminders = store.LongTerm(), store.Index(), store.Reminders()
	env.ReminderAdded, env.Embedder, env.Images = m.reminders.Wake, s.embedder, painter
	if searcher := websearch.New(cfg.WebSearch); searcher != nil {
		env.WebSearch = searcher
		log.Info("web_search is offered", "provider", searcher.Provider())
	}
	registry := agent.NewRegistry(tools.Builtin(env)...)
	if cfg.Tools.FetchAllowPrivate {
		log.Warn("FETCH_ALLOW_PRIVATE is on: fetch_url may reach loopback and private addresses")
	}
	if len(cfg.MCPServers) == 0 {
		return registry, nil
	}
	// They serve turns in flight: they stop with the work, at the end.
	// The tools go into every request: at most half of CONTEXT_TOKENS,
	// or the history would have no room.
	budget := min(cfg.MCPToolsBudget, cfg.Agent.ContextTokens/2)
	if budget < cfg.MCPToolsBudget {
		log.Warn("MCP_TOOLS_BUDGET is held to half of CONTEXT_TOKENS, so that requests keep room for the conversation",
			"mcp_tools_budget", cfg.MCPToolsBudget, "held_to", budget)
	}
	mcp := mcptools.Start(m.work, cfg.MCPServers, tools.Names(), budget, registry.SetExtra, log)
	registry.AwaitExtra(mcp.Tried())
	m.undo = append(m.undo, func() { m.abandon(); mcp.Wait() })
	m.mcpTried = mcp.Tried()
	return registry, mcp.Statuses
}

// newMemorizer makes the memory work after turns: facts, summaries and
// embeddings, with the chat server's client.
func (m *membot) newMemorizer(s servers, registry *agent.Registry) *memorize.Memorizer {
	store := m.store
	return &memorize.Memorizer{Config: m.cfg.Memory, Store: store.LongTerm(), Index: store.Index(), Jobs: store.Jobs(),
		LLM: s.chat, Embedder: s.embedder, Tools: registry, Log: m.log}
}

// newAgent makes what runs the turns: the settings of cfg.Agent with the
// parts it works with.
func (m *membot) newAgent(s servers, registry *agent.Registry) *agent.Agent {
	return agent.New(m.cfg.Agent, agent.Parts{
		Store: m.store, LLM: s.chat, Servers: s.models, Tools: registry, Log: m.log, Metrics: m.met,
		IsAdmin: m.cfg.Bot.Access.IsAdmin, Files: media.ImageFiles{Client: m.client},
		Transcriber: s.transcription, Speaker: s.speech, Embedder: s.embedder, TurnDone: m.memorizer.Wake,
	})
}

// newWeb is the web interface over the store: the operator's pages and
// the Mini App.
func newWeb(cfg *Config, store *memory.Store, users *userdata.Store, servers func() []mcptools.Status,
	decided func(ctx context.Context, req memory.AccessRequest, status string),
	who func(ctx context.Context, userID int64) (serves, admin bool, err error), log *slog.Logger) *web.Server {
	wc := cfg.Web
	wc.Location, wc.DailyTokenLimit = cfg.Location, cfg.Bot.Access.DailyTokenLimit
	policy := &cfg.Bot.Access
	pages := console.New(store.Pool())
	deps := web.Deps{
		Sessions: pages, Overview: pages, Conversations: pages, Memory: pages, Usage: pages, Waits: pages,
		Facts: store.LongTerm(), Search: store.Index(), Events: store.Events(), Access: store.Access(), Export: users.Export,
		Who:      who,
		BotToken: cfg.Telegram.Token, ExportsPerHour: cfg.Bot.ExportsPerHour, Log: log,
		Rules: func() web.AccessRules { return accessRules(policy) }, Decided: decided,
		Settings: cfg.ShownSettings,
		Origin: func(f console.From) string {
			return string(agent.UserRow{Group: f.Group, Forwarded: f.Forwarded, ViaBot: f.ViaBot, Scheduled: f.Scheduled, Media: f.Media}.Origin())
		},
	}
	if cfg.Checks != nil {
		secrets := cfg.Secrets()
		deps.Checks = func(ctx context.Context) []web.Check {
			lines := cfg.Checks(ctx)
			for i := range lines { // no secret ever reaches a page
				lines[i].Detail = secrets.String(lines[i].Detail)
			}
			return lines
		}
	}
	if servers != nil {
		deps.Servers = func() []web.ToolServer {
			var out []web.ToolServer
			for _, st := range servers() {
				out = append(out, web.ToolServer{Name: st.Name, Transport: st.Transport, State: st.State, Why: st.Why,
					Tools: st.Tools, Trusted: st.Trusted, LeftOut: st.LeftOut})
			}
			return out
		}
	}
	return web.New(wc, deps)
}

// accessRules is what the access policy's settings say, for the web's
// access page.
func accessRules(p *access.Policy) web.AccessRules {
	ids := func(set map[int64]bool) []int64 {
		out := slices.Collect(maps.Keys(set))
		slices.Sort(out)
		return out
	}
	return web.AccessRules{Mode: string(p.Mode()), Admins: ids(p.Admins), AllowedUsers: ids(p.AllowedUsers), AllowedChats: ids(p.AllowedChats)}
}

// serveWeb serves the web interface on WEB_ADDR. Its failure to listen
// (the port is taken) or its settings' refusal (a public address without
// WEB_URL) costs the pages, never the bot: one line says why.
func (m *membot) serveWeb() error {
	access, why := m.cfg.Web.Access()
	if access == web.Off {
		if m.cfg.Web.Addr != "" {
			m.log.Warn("the web interface is off: " + why)
		}
		return nil
	}
	srv, err := startServer(m.log, "web", m.cfg.Web.Addr, m.web.Handler(), "", "")
	if err != nil {
		m.log.Warn("the web interface is off: WEB_ADDR "+m.cfg.Web.Addr+" cannot be listened on (is the port taken?); the bot runs without it", "err", err)
		return nil
	}
	m.undo = append(m.undo, srv.stop)
	m.web.Serving()
	if access == web.Local {
		m.log.Info("web interface: http://" + srv.addr() + " (loopback, no sign-in)")
	} else {
		m.log.Info("web interface: " + m.cfg.Web.URL + " (sign in with /web)")
	}
	if app := m.web.MiniAppURL(); app != "" {
		if err := m.client.SetMenuWebApp(m.intake, "Memory", app); err != nil {
			m.log.Warn("the menu button does not open the Mini App: Telegram refused it; /memory still offers it", "err", err)
		}
	}
	return nil
}

// startIntake starts taking updates in (by webhook or polling) and the
// work behind them: the dispatcher, the memory work, reminders, the purger.
func (m *membot) startIntake() error {
	ctx, cfg := m.intake, m.cfg
	// A turn taken over from a run that stopped is answered with the tools
	// its model saw: the MCP servers' are offered once they are tried, which
	// is waited for here, within a bound (a server slow to start is not
	// waited for longer).
	if m.mcpTried != nil {
		m.log.Info("waiting for the MCP servers to start before handling updates", "at_most", mcptools.ConnectWait)
		select {
		case <-m.mcpTried:
		case <-time.After(mcptools.ConnectWait):
			m.log.Warn("MCP servers still starting; updates are handled meanwhile, without their tools", "waited", mcptools.ConnectWait)
		case <-ctx.Done():
			return errStopped
		}
	}
	dispatcher := &inbox.Dispatcher{
		Queue:     m.store.Inbox(),
		Handler:   m.handler,
		Owner:     m.owner.ID,
		Workers:   cfg.Intake.Workers,
		Sweep:     cfg.Intake.Sweep,
		Log:       m.log,
		Transient: bot.Transient,
		Stuck:     m.stuck,
		Metrics:   m.met,

		GiveUpAfter: cfg.Intake.GiveUpAfterCrashes,
	}
	// The dispatcher stores what intake receives: it claims the chats it can
	// in the same round trip and starts their workers, so needs no Notify.
	if cfg.Intake.Mode == inbox.ModeWebhook {
		// Updates stored before the dispatcher runs are found by its first sweep.
		hook, err := startWebhook(ctx, cfg, m.log, m.client, dispatcher, nil, m.met)
		if err != nil {
			return err
		}
		m.run(func() { <-ctx.Done(); hook.stop() }) // intake stops at once
	} else {
		poller := &inbox.Poller{Client: m.client, Inbox: dispatcher, Timeout: cfg.Telegram.PollTimeout, Metrics: m.met, Log: m.log}
		m.run(func() { poller.Run(ctx) })
	}
	m.run(func() { m.memorizer.Run(ctx) }) // its progress is in the database: it stops at once
	m.run(func() { dispatcher.Run(ctx, m.work) })
	m.reminders.RunQueued = dispatcher.Notify // a task's run starts at once
	up := time.Now()                          // set before the goroutine starts: what falls due from now on is on time
	m.run(func() { m.reminders.Run(ctx, m.work, up) })
	m.run(func() { m.purger.Run(ctx) })
	return nil
}

// run runs fn in the background; shutdown waits for it.
func (m *membot) run(fn func()) {
	m.running.Add(1)
	go func() { defer m.running.Done(); fn() }()
}

// shutdown waits for what startIntake started, turns in flight up to
// ShutdownTimeout; then it abandons them.
func (m *membot) shutdown() {
	m.log.Info("shutting down: no new updates; waiting for turns in flight", "timeout", m.cfg.ShutdownTimeout)
	stopped := make(chan struct{})
	go func() { m.running.Wait(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(m.cfg.ShutdownTimeout):
		m.log.Warn("turns still in flight at the shutdown deadline; they will be taken up again at the next start")
		m.abandon()
		<-stopped
	}
	m.log.Info("membot stopped")
}

// startRecall says, once, how recall works, and returns the embedder of
// EMBEDDINGS_MODEL when the database can keep embeddings (pgvector), or nil.
func startRecall(ctx context.Context, cfg *Config, store *memory.Store, hc *http.Client, log *slog.Logger) agent.Embedder {
	if cfg.Memory.EmbeddingsModel == "" {
		log.Info("recall: full-text search alone (set EMBEDDINGS_MODEL for semantic recall)", "auto_recall", cfg.Agent.Recall, "auto_memory", cfg.Memory.AutoMemory)
		return nil
	}
	ok, err := store.Index().EnableVectors(ctx)
	if err != nil || !ok {
		log.Warn("recall: full-text search alone: the database has no pgvector (CREATE EXTENSION vector as a superuser, then restart)",
			"embeddings_model", cfg.Memory.EmbeddingsModel, "err", err)
		return nil
	}
	log.Info("recall: full-text and semantic search", "embeddings_model", cfg.Memory.EmbeddingsModel, "auto_recall", cfg.Agent.Recall, "auto_memory", cfg.Memory.AutoMemory)
	return memorize.NewEmbedder(cfg.LLM.Embeddings.BaseURL, cfg.LLM.Embeddings.APIKey, cfg.Memory.EmbeddingsModel, hc)
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

// pictureBudget is a user's DAILY_TOKEN_LIMIT and when their day began,
// -1 for admins and when there is no limit: what a picture's tokens are
// reserved within.
func pictureBudget(policy *access.Policy) images.Budget {
	return func(userID int64) (int64, time.Time) {
		if policy.DailyTokenLimit <= 0 || policy.IsAdmin(userID) {
			return -1, time.Time{}
		}
		return policy.DailyTokenLimit, policy.DayStart(policy.Now())
	}
}
