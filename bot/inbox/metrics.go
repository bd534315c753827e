package inbox

// Metrics is what intake reports for monitoring; nil reports nothing.
// internal/metrics implements it.
type Metrics interface {
	UpdatesReceived(source string, n int) // stored in the inbox by "polling" or "webhook"
	UpdateRenumbered()                    // stored under a new id: an earlier update held Telegram's
	UpdatePoisoned()                      // given up: runs died with it in hand (Dispatcher.GiveUpAfter)
}

type noMetrics struct{}

func (noMetrics) UpdatesReceived(string, int) {}
func (noMetrics) UpdateRenumbered()           {}
func (noMetrics) UpdatePoisoned()             {}

// orNone returns m, or a Metrics that reports nothing when m is nil.
func orNone(m Metrics) Metrics {
	if m == nil {
		return noMetrics{}
	}
	return m
}
