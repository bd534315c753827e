package agent

import (
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"strconv"
	"time"

	"github.com/sashabaranov/go-openai"
)

// RetryPolicy bounds the model calls of one step.
type RetryPolicy struct {
	Timeout  time.Duration // per call (a streamed call: per piece of it); 60 s when zero
	Attempts int           // in all, the first included; 4 when zero
	Backoff  time.Duration // before the first retry, doubling; 500 ms when zero
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.Timeout <= 0 {
		p.Timeout = 60 * time.Second
	}
	if p.Attempts <= 0 {
		p.Attempts = 4
	}
	if p.Backoff <= 0 {
		p.Backoff = 500 * time.Millisecond
	}
	return p
}

// withRetry makes a call to model, repeating rate limits, server errors and
// time-outs with exponential backoff and jitter. call gets the time one
// attempt may take.
func (a *Agent) withRetry(ctx context.Context, model string, call func(ctx context.Context, timeout time.Duration) error) error {
	p := a.cfg.Retry.withDefaults()
	wait := p.Backoff
	for attempt := 1; ; attempt++ {
		start := time.Now()
		err := call(ctx, p.Timeout)
		a.cfg.Metrics.LLMRequest(model, callStatus(err), time.Since(start))
		if err == nil || attempt >= p.Attempts || !retryable(err) || ctx.Err() != nil {
			return err
		}
		a.log.Warn("model call failed; retrying", "attempt", attempt, "err", err, "in", wait)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait/2 + rand.N(wait)):
		}
		wait *= 2
	}
}

// retryable reports whether a failed model call may succeed if repeated.
func retryable(err error) bool {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		return apiErr.HTTPStatusCode == 429 || apiErr.HTTPStatusCode >= 500
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		return reqErr.HTTPStatusCode == 429 || reqErr.HTTPStatusCode >= 500
	}
	var netErr net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, errStreamCut) || errors.As(err, &netErr)
}

// callStatus names the outcome of a model call for metrics and llm_calls.
func callStatus(err error) string {
	if err == nil {
		return "ok"
	}
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) && apiErr.HTTPStatusCode != 0 {
		return strconv.Itoa(apiErr.HTTPStatusCode)
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) && reqErr.HTTPStatusCode != 0 {
		return strconv.Itoa(reqErr.HTTPStatusCode)
	}
	var netErr net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.As(err, &netErr):
		return "network"
	}
	return "error"
}
