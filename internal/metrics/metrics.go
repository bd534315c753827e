// Package metrics is membot's Prometheus instrumentation and its small HTTP
// surface: /healthz, /readyz and /metrics. The bot and the agent report to
// it through interfaces they declare themselves; cmd/membot wires it in.
package metrics

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Metrics holds membot's series in a registry of its own, so two bots in one
// process (tests) never collide.
type Metrics struct {
	reg             *prometheus.Registry
	updatesReceived *prometheus.CounterVec
	repliesSent     *prometheus.CounterVec
	turnDuration    *prometheus.HistogramVec
	llmDuration     *prometheus.HistogramVec
	llmErrors       *prometheus.CounterVec
	toolCalls       *prometheus.CounterVec
	telegramRetries *prometheus.CounterVec
	telegram429     prometheus.Counter
	renumbered      prometheus.Counter
	poisoned        prometheus.Counter
	models          modelHealth // for ModelCheck (model.go)
}

// slowBuckets fit turns and model calls: 50 ms to about 100 s.
var slowBuckets = prometheus.ExponentialBuckets(0.05, 2, 12)

// New creates the series, with the Go runtime's and the process's own.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		updatesReceived: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "membot_updates_received_total", Help: "Telegram updates stored in the inbox, by intake (polling or webhook).",
		}, []string{"source"}),
		repliesSent: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "membot_replies_sent_total", Help: "Replies delivered to Telegram: model answers and the bot's own texts.",
		}, []string{"kind"}),
		turnDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "membot_turn_duration_seconds", Help: "Time from taking up a text message to delivering its answer.", Buckets: slowBuckets,
		}, []string{"outcome"}),
		llmDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "membot_llm_request_duration_seconds", Help: "Latency of each model request (every attempt).", Buckets: slowBuckets,
		}, []string{"model"}),
		llmErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "membot_llm_errors_total", Help: "Failed model requests, by HTTP status, timeout, network or error.",
		}, []string{"status"}),
		toolCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "membot_tool_calls_total", Help: "Tool calls, by tool and result (ok or error).",
		}, []string{"tool", "result"}),
		telegramRetries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "membot_telegram_retries_total", Help: "Telegram calls repeated, by reason (429, 5xx, network).",
		}, []string{"reason"}),
		telegram429: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "membot_telegram_rate_limited_total", Help: "429 Too Many Requests answers from Telegram.",
		}),
		renumbered: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "membot_updates_renumbered_total", Help: "Updates stored under a new id because an earlier update (another bot's, or from before the Bot API's ids started again) held Telegram's.",
		}),
		poisoned: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "membot_updates_poisoned_total", Help: "Updates given up because the process died each time it had them in hand (3 runs): the chat was told and went on.",
		}),
	}
	m.reg.MustRegister(m.updatesReceived, m.repliesSent, m.turnDuration, m.llmDuration, m.llmErrors,
		m.toolCalls, m.telegramRetries, m.telegram429, m.renumbered, m.poisoned,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// UpdatesReceived counts n updates stored by an intake.
func (m *Metrics) UpdatesReceived(source string, n int) {
	m.updatesReceived.WithLabelValues(source).Add(float64(n))
}

// UpdateRenumbered counts an update stored under a new id.
func (m *Metrics) UpdateRenumbered() { m.renumbered.Inc() }

// UpdatePoisoned counts an update given up because runs died with it in hand.
func (m *Metrics) UpdatePoisoned() { m.poisoned.Inc() }

// WatchBlockedChats reports, at every scrape, how many chats wait on an
// update that has been in hand for too long (count).
func (m *Metrics) WatchBlockedChats(count func() int) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "membot_chats_blocked", Help: "Chats whose head update has been in hand for longer than CHAT_BLOCKED_AFTER: their later messages wait.",
	}, func() float64 { return float64(count()) }))
}

// ReplySent counts a delivered reply of a kind ("answer" or "text").
func (m *Metrics) ReplySent(kind string) { m.repliesSent.WithLabelValues(kind).Inc() }

// Turn observes a text turn's duration; outcome is "answered" or "failed".
func (m *Metrics) Turn(outcome string, took time.Duration) {
	m.turnDuration.WithLabelValues(outcome).Observe(took.Seconds())
}

// LLMRequest observes one model request attempt.
func (m *Metrics) LLMRequest(model, status string, took time.Duration) {
	m.llmDuration.WithLabelValues(model).Observe(took.Seconds())
	m.models.record(model, status)
	if status != "ok" {
		m.llmErrors.WithLabelValues(status).Inc()
	}
}

// ToolCall counts one tool call, and how it ended: err nil is "ok".
func (m *Metrics) ToolCall(tool string, err error) {
	result := "ok"
	if err != nil {
		result = "error"
	}
	m.toolCalls.WithLabelValues(tool, result).Inc()
}

// TelegramRetry counts a Telegram call about to be repeated; a 429 is
// also counted as rate limited.
func (m *Metrics) TelegramRetry(reason string) {
	m.telegramRetries.WithLabelValues(reason).Inc()
	if reason == "429" {
		m.telegram429.Inc()
	}
}

// WatchInbox reports the backlog (the inbox's and the purger's) at every
// scrape, from backlog.
func (m *Metrics) WatchInbox(backlog func(ctx context.Context) (Backlog, error)) {
	m.reg.MustRegister(&inboxCollector{backlog: backlog})
}

// WatchPool reports the database pool's statistics at every scrape.
func (m *Metrics) WatchPool(stat func() *pgxpool.Stat) {
	m.reg.MustRegister(&poolCollector{stat: stat})
}

// Registry is the registry the series live in (for tests and extra collectors).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }
