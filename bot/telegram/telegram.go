// Package telegram is membot's Telegram Bot API client: one method per API
// call, context first, its parameters in a struct where there are several
// (SendMessageParams, …), with the rate limits Telegram sets, retries that
// respect its flood control, and errors that never show the bot token. How
// an answer is rendered, split and shown is bot/present's. It knows
// nothing of the database or the model.
package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/membot/membot/internal/backoff"
	"github.com/membot/membot/internal/redact"
)

// Client talks to the Telegram Bot API through the library's request and
// response types. It adds what the library lacks: cancellation, time-outs,
// retries that respect Telegram's flood control, and errors that never show
// the bot token (the library's transport errors carry the URL with it).
type Client struct {
	token   string
	api     *tgbotapi.BotAPI // sends; cancelled only when in-flight work is abandoned
	poll    *tgbotapi.BotAPI // getUpdates; cancelled as soon as shutdown starts
	probe   *tgbotapi.BotAPI // readiness checks, with a short time-out
	Self    tgbotapi.User
	retry   SendRetry
	metrics Metrics
	lastOK  atomic.Int64              // unix nanoseconds of the last successful call
	failed  atomic.Pointer[CallError] // the last failed attempt of a call, nil after a success
	limit   *sendLimiter              // nil when rate limiting is off
	unknown unsupported               // methods the server answered 404 to
	topics  bool                      // getMe's has_topics_enabled
	// Downloads (files.go): {APIURL}/file/bot<token>/, their client and
	// how long one may take.
	fileURL     string
	files       *http.Client
	fileTimeout time.Duration
}

// SendRetry bounds the retries of one Telegram call.
type SendRetry struct {
	Attempts int           // in all; 6 when zero
	Backoff  time.Duration // first wait after a server or network error, doubling; 500 ms when zero
	MaxWait  time.Duration // longest single wait, retry_after included; 60 s when zero
}

// Config says where and how to reach Telegram. Token, APIURL, PollTimeout
// and RateLimit are settings (DefaultConfig has their defaults); the rest
// is wiring.
type Config struct {
	// Token is the bot's token from @BotFather (TELEGRAM_BOT_TOKEN); never logged.
	Token string
	// APIURL is where the Bot API lives (TELEGRAM_API_URL): requests go to
	// {APIURL}/bot{token}/{method}; a self-hosted Bot API server has its own.
	APIURL string
	// PollTimeout is the long-polling timeout of one getUpdates call (POLL_TIMEOUT).
	PollTimeout time.Duration
	// RateLimit spaces sent messages to stay under Telegram's limits (see
	// sendLimiter); off for benchmarks (TELEGRAM_RATE_LIMIT).
	RateLimit bool

	Retry     SendRetry
	Metrics   Metrics
	Transport http.RoundTripper // nil: http.DefaultTransport
	// RequestTimeout bounds one call other than getUpdates; 30 s when zero.
	RequestTimeout time.Duration
}

// DefaultAPIURL is Telegram's own Bot API server.
const DefaultAPIURL = "https://api.telegram.org"

// DefaultConfig is the settings' defaults.
func DefaultConfig() Config {
	return Config{APIURL: DefaultAPIURL, PollTimeout: 30 * time.Second, RateLimit: true}
}

// NewClient returns a client whose sends stop when sendCtx ends and whose
// polling stops when pollCtx ends.
func NewClient(sendCtx, pollCtx context.Context, cfg Config) *Client {
	endpoint := strings.ReplaceAll(strings.TrimRight(cfg.APIURL, "/"), "%", "%%") + "/bot%s/%s"
	newAPI := func(ctx context.Context, timeout time.Duration) *tgbotapi.BotAPI {
		api := &tgbotapi.BotAPI{Token: cfg.Token, Buffer: 100,
			Client: ctxClient{ctx: ctx, client: &http.Client{Timeout: timeout, Transport: cfg.Transport}}}
		api.SetAPIEndpoint(endpoint)
		return api
	}
	if cfg.Retry.Attempts <= 0 {
		cfg.Retry.Attempts = 6
	}
	if cfg.Retry.Backoff <= 0 {
		cfg.Retry.Backoff = 500 * time.Millisecond
	}
	if cfg.Retry.MaxWait <= 0 {
		cfg.Retry.MaxWait = time.Minute
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = 30 * time.Second
	}
	c := &Client{
		token:   cfg.Token,
		api:     newAPI(sendCtx, cfg.RequestTimeout),
		poll:    newAPI(pollCtx, cfg.PollTimeout+15*time.Second),
		probe:   newAPI(sendCtx, 5*time.Second),
		retry:   cfg.Retry,
		metrics: cfg.Metrics,
		fileURL: strings.TrimRight(cfg.APIURL, "/") + "/file/bot" + cfg.Token + "/",
		// A file is read whole before the turn goes on: bounded like a call,
		// with time for 20 MB over a slow link.
		files:       &http.Client{Transport: cfg.Transport},
		fileTimeout: 2*cfg.RequestTimeout + time.Minute,
	}
	if c.metrics == nil {
		c.metrics = noMetrics{}
	}
	if cfg.RateLimit {
		c.limit = newSendLimiter()
	}
	return c
}

// ctxClient attaches a context to every request, since the library builds
// its requests without one.
type ctxClient struct {
	ctx    context.Context
	client *http.Client
}

func (c ctxClient) Do(req *http.Request) (*http.Response, error) {
	return c.client.Do(req.WithContext(c.ctx))
}

// Connect asks Telegram who the bot is, retrying network and server trouble
// until ctx ends; a rejected token fails at once.
func (c *Client) Connect(ctx context.Context) error {
	b := backoff.New(5*time.Second, time.Minute)
	for {
		err := c.getMe(ctx)
		if err == nil {
			return nil
		}
		// Telegram (or the network to it) being down is no reason to exit: a
		// process manager would only restart the bot into the same wait.
		if IsPermanent(err) || !b.Sleep(ctx) {
			return fmt.Errorf("getMe: %w", err)
		}
	}
}

// Me asks Telegram once who the bot is (with the call's own retries), and
// fills Self: `membot doctor` checks the token with it.
func (c *Client) Me(ctx context.Context) (tgbotapi.User, error) {
	if err := c.getMe(ctx); err != nil {
		return tgbotapi.User{}, fmt.Errorf("getMe: %w", err)
	}
	return c.Self, nil
}

func (c *Client) getMe(ctx context.Context) error {
	raw, err := c.request(ctx, func() (*tgbotapi.APIResponse, error) { return c.api.MakeRequest("getMe", nil) })
	if err != nil {
		return err
	}
	var extra struct {
		HasTopicsEnabled bool `json:"has_topics_enabled"`
	}
	json.Unmarshal(raw, &extra) // a field the library does not know
	c.topics = extra.HasTopicsEnabled
	return json.Unmarshal(raw, &c.Self)
}

// send makes one call with c.api, outside any topic, with retries, and
// returns the raw result.
func (c *Client) send(ctx context.Context, call tgbotapi.Chattable) (json.RawMessage, error) {
	return c.sendIn(ctx, 0, call)
}

// sendIn is send with the call going to topic thread (0: none).
func (c *Client) sendIn(ctx context.Context, thread int64, call tgbotapi.Chattable) (json.RawMessage, error) {
	if do, ok := c.inThread(thread, call); ok {
		return c.request(ctx, do)
	}
	return c.request(ctx, func() (*tgbotapi.APIResponse, error) { return c.api.Request(call) })
}

// request makes a call with retries and returns the raw result.
func (c *Client) request(ctx context.Context, do func() (*tgbotapi.APIResponse, error)) (json.RawMessage, error) {
	b := backoff.New(c.retry.Backoff, c.retry.MaxWait)
	for attempt := 1; ; attempt++ {
		resp, err := do()
		if err == nil {
			c.reached()
			return resp.Result, nil
		}
		withCode(resp, err)
		err = c.redact(err)
		c.failed.Store(&CallError{err: err})
		if attempt >= c.retry.Attempts || ctx.Err() != nil || !retryable(err) {
			return nil, &CallError{err: err}
		}
		c.metrics.TelegramRetry(retryReason(err))
		if after, limited := floodWait(err); limited {
			if !backoff.Sleep(ctx, min(after, c.retry.MaxWait)) {
				return nil, &CallError{err: err}
			}
		} else if !b.Sleep(ctx) {
			return nil, &CallError{err: err}
		}
	}
}

// withCode gives a refusal its status code: the library's upload path
// (sendDocument and the like) returns the Bot API's error without it, and
// an error of code 0 would look like network trouble, retried for ever.
func withCode(resp *tgbotapi.APIResponse, err error) {
	apiErr, ok := APIError(err)
	if !ok || apiErr.Code != 0 {
		return
	}
	apiErr.Code = http.StatusBadRequest // Telegram answered, and said no
	if resp != nil && resp.ErrorCode != 0 {
		apiErr.Code = resp.ErrorCode
	}
}

// retryable reports whether a failed call may succeed if repeated: flood
// control, server errors and network trouble. Client errors (400, 401, 403,
// 404) are final.
func retryable(err error) bool {
	if apiErr, ok := APIError(err); ok {
		return apiErr.Code == http.StatusTooManyRequests || apiErr.Code >= 500
	}
	return !errors.Is(err, context.Canceled)
}

// retryReason names why a call is repeated, for metrics.
func retryReason(err error) string {
	if apiErr, ok := APIError(err); ok {
		if apiErr.Code == http.StatusTooManyRequests {
			return "429"
		}
		return "5xx"
	}
	return "network"
}

// floodWait returns Telegram's retry_after when err is a 429.
func floodWait(err error) (time.Duration, bool) {
	apiErr, ok := APIError(err)
	if !ok || apiErr.Code != http.StatusTooManyRequests {
		return 0, false
	}
	return max(time.Duration(apiErr.RetryAfter)*time.Second, time.Second), true
}

// APIError returns the Bot API's error in err, if it is one.
func APIError(err error) (*tgbotapi.Error, bool) {
	var apiErr *tgbotapi.Error
	ok := errors.As(err, &apiErr)
	return apiErr, ok
}

// IsPermanent reports whether a failed send will fail again however often it
// is repeated: the chat is gone, the bot was blocked, the request is bad.
func IsPermanent(err error) bool {
	apiErr, ok := APIError(err)
	return ok && apiErr.Code >= 400 && apiErr.Code < 500 && apiErr.Code != http.StatusTooManyRequests
}

// IsGone reports whether a send failed because the bot can no longer write
// to the chat: the user blocked it, it left or was removed from the group,
// or the chat no longer exists.
func IsGone(err error) bool {
	apiErr, ok := APIError(err)
	return ok && (apiErr.Code == http.StatusForbidden ||
		apiErr.Code == http.StatusBadRequest && strings.Contains(strings.ToLower(apiErr.Message), "chat not found"))
}

// CallError is a Bot API call that failed after its retries. It keeps the
// cause's chain for errors.Is/As.
type CallError struct{ err error }

func (e *CallError) Error() string { return e.err.Error() }
func (e *CallError) Unwrap() error { return e.err }

// HTTPStatus is the Bot API's error code and description, or 0 when the
// call failed before Telegram answered (internal/netcause).
func (e *CallError) HTTPStatus() (int, string) {
	if apiErr, ok := APIError(e.err); ok {
		return apiErr.Code, apiErr.Message
	}
	return 0, ""
}

// LastError is why the newest attempt of a call failed, while no call has
// succeeded since; nil otherwise. A start that waits for Telegram says it.
func (c *Client) LastError() error {
	if e := c.failed.Load(); e != nil {
		return e
	}
	return nil
}

// Transient reports whether err is a call to Telegram that failed but may
// succeed later: network trouble, a server error, flood control.
func Transient(err error) bool {
	var call *CallError
	return errors.As(err, &call) && !IsPermanent(err) && !errors.Is(err, context.Canceled)
}

// redact removes the token from an error's text, keeping the chain for errors.Is/As.
func (c *Client) redact(err error) error { return redact.Error(err, redact.Mark, c.token) }

// reached notes that Telegram answered just now.
func (c *Client) reached() {
	c.lastOK.Store(time.Now().UnixNano())
	c.failed.Store(nil)
}

// Reachable reports whether Telegram answered within the last minute,
// asking it (getMe, once, briefly) when it has not been called lately.
func (c *Client) Reachable(ctx context.Context) error {
	if time.Since(time.Unix(0, c.lastOK.Load())) < time.Minute {
		return nil
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.probe.MakeRequest("getMe", nil)
		done <- c.redact(err)
	}()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("telegram unreachable: %w", err)
		}
		c.reached()
		return nil
	case <-ctx.Done():
		return fmt.Errorf("telegram unreachable: %w", ctx.Err())
	}
}
