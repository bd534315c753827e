package telegram

// Metrics is what the client reports for monitoring; nil reports nothing.
// internal/metrics implements it.
type Metrics interface {
	TelegramRetry(reason string) // "429", "5xx" or "network"
}

type noMetrics struct{}

func (noMetrics) TelegramRetry(string) {}
