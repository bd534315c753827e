package bot

import "time"

// Metrics is what the Telegram side reports for monitoring; nil reports
// nothing. internal/metrics implements it; the same value serves
// telegram.Metrics and inbox.Metrics.
type Metrics interface {
	UpdatesReceived(source string, n int) // stored in the inbox by "polling" or "webhook"
	ReplySent(kind string)                // "answer" (the model's) or "text" (the bot's own)
	Turn(outcome string, took time.Duration)
	TelegramRetry(reason string) // "429", "5xx" or "network"
}

type noMetrics struct{}

func (noMetrics) UpdatesReceived(string, int) {}
func (noMetrics) ReplySent(string)            {}
func (noMetrics) Turn(string, time.Duration)  {}
func (noMetrics) TelegramRetry(string)        {}

// orNone returns m, or a Metrics that reports nothing when m is nil.
func orNone(m Metrics) Metrics {
	if m == nil {
		return noMetrics{}
	}
	return m
}
