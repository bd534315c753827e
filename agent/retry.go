package agent

import (
	"context"
	"errors"
	"net"
	"time"

	"github.com/membot/membot/agent/llm"
	"github.com/membot/membot/internal/backoff"
)

// RetryPolicy bounds the model calls of one step.
type RetryPolicy struct {
	// Timeout bounds one attempt as a whole, streamed or not (LLM_TIMEOUT);
	// 300 s when zero, sized for reasoning models. An attempt that runs
	// out of it is not repeated: it would likely run out again.
	Timeout  time.Duration
	Attempts int           // in all, the first included; 4 when zero
	Backoff  time.Duration // before the first retry, doubling; 500 ms when zero
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.Timeout <= 0 {
		p.Timeout = 300 * time.Second
	}
	if p.Attempts <= 0 {
		p.Attempts = 4
	}
	if p.Backoff <= 0 {
		p.Backoff = 500 * time.Millisecond
	}
	return p
}

// withRetry makes a call to model, repeating rate limits, server errors,
// stalled and cut streams with exponential backoff and jitter. A refusal
// that will never succeed is not repeated.
func (a *Agent) withRetry(ctx context.Context, model string, call func(ctx context.Context) error) error {
	p := a.cfg.Retry.withDefaults()
	wait := backoff.New(p.Backoff, 30*time.Second)
	for attempt := 1; ; attempt++ {
		start := time.Now()
		err := a.attempt(ctx, p.Timeout, call)
		a.parts.Metrics.LLMRequest(model, callStatus(err), time.Since(start))
		if err == nil || attempt >= p.Attempts || !retryable(err) || ctx.Err() != nil {
			return err
		}
		a.log.Warn("model call failed; retrying", "attempt", attempt, "err", err, "in", wait.Peek())
		if !wait.Sleep(ctx) {
			return ctx.Err()
		}
	}
}

// attempt runs call within timeout, naming the timeout as the cause.
func (a *Agent) attempt(ctx context.Context, timeout time.Duration, call func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, errCallTimeout)
	defer cancel()
	err := call(ctx)
	if err != nil && errors.Is(context.Cause(ctx), errCallTimeout) {
		return errCallTimeout
	}
	return err
}

// retryable reports whether a failed model call may succeed if repeated.
func retryable(err error) bool {
	var apiErr *llm.APIError
	if errors.As(err, &apiErr) {
		s := apiErr.Status
		if knownRefusal(apiErr.Message) {
			return false // a 500 that says what it will not take says so every time
		}
		return s == 429 || (s >= 500 && s != 501) || (apiErr.InStream && s == 0)
	}
	if errors.Is(err, errCallTimeout) || errors.Is(err, llm.ErrBodyTooLarge) {
		return false
	}
	var netErr net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, llm.ErrStreamCut) ||
		errors.Is(err, llm.ErrFinishError) || errors.As(err, &netErr)
}

// callStatus names the outcome of a model call for metrics and llm_calls.
func callStatus(err error) string { return llm.CallStatus(err) }
