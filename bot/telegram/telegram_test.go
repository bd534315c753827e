package telegram

import (
	"context"
	"testing"
	"time"

	"github.com/membot/membot/internal/testing/telegramfake"
)

const fakeToken = "42:FAKE-token"

// newFakeClient returns a client of a fresh fake Telegram, with quick retries.
func newFakeClient(t *testing.T, cfg Config) (*Client, *telegramfake.Server) {
	t.Helper()
	fake := telegramfake.New(fakeToken)
	t.Cleanup(fake.Close)
	cfg.Token, cfg.APIURL = fakeToken, fake.URL()
	if cfg.Retry.Backoff == 0 {
		cfg.Retry.Backoff = 10 * time.Millisecond
	}
	c := NewClient(context.Background(), context.Background(), cfg)
	if err := c.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	return c, fake
}

func TestSendingSurvivesFloodControlServerErrorsAndTimeouts(t *testing.T) {
	cases := []struct {
		name      string
		fault     telegramfake.Fault
		calls     int
		minElapse time.Duration
	}{
		{"429 waits retry_after", telegramfake.Fault{Status: 429, RetryAfter: 1, Message: "Too Many Requests: retry after 1", Times: 1}, 2, time.Second},
		{"500s are retried", telegramfake.Fault{Status: 500, Message: "Internal Server Error", Times: 2}, 3, 0},
		{"502 from a proxy", telegramfake.Fault{Status: 502, Message: "Bad Gateway", Times: 1}, 2, 0},
		{"a time-out is retried", telegramfake.Fault{Delay: time.Minute, Times: 1}, 2, 200 * time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			client, fake := newFakeClient(t, Config{RequestTimeout: 200 * time.Millisecond})
			c.fault.Method = "sendMessage"
			fake.Inject(c.fault)
			start := time.Now()
			id, err := client.SendMessage(context.Background(), SendMessageParams{Chat: Chat{ID: 7}, Text: "hello"})
			if err != nil || id == 0 {
				t.Fatalf("SendMessage = %v, %v", id, err)
			}
			if n := len(fake.Calls("sendMessage")); n != c.calls {
				t.Errorf("sendMessage calls = %d, want %d", n, c.calls)
			}
			if sent := fake.SentTo(7); len(sent) != 1 || sent[0] != "hello" {
				t.Errorf("delivered %q, want hello once", sent)
			}
			if elapsed := time.Since(start); elapsed < c.minElapse {
				t.Errorf("retried after %v, before the %v it had to wait", elapsed, c.minElapse)
			}
		})
	}
}

func TestSendingGivesUpOnFinalErrors(t *testing.T) {
	client, fake := newFakeClient(t, Config{Retry: SendRetry{Attempts: 3}})
	fake.Inject(telegramfake.Fault{Method: "sendMessage", Status: 403, Message: "Forbidden: bot was blocked by the user", Times: 1})
	_, err := client.SendMessage(context.Background(), SendMessageParams{Chat: Chat{ID: 7}, Text: "hello"})
	if !IsPermanent(err) || len(fake.Calls("sendMessage")) != 1 {
		t.Fatalf("403: err = %v after %d calls; want a permanent error at once", err, len(fake.Calls("sendMessage")))
	}
	fake.Inject(telegramfake.Fault{Method: "sendMessage", Status: 500, Message: "Internal Server Error", Times: 100})
	_, err = client.SendMessage(context.Background(), SendMessageParams{Chat: Chat{ID: 7}, Text: "hello"})
	if err == nil || IsPermanent(err) || len(fake.Calls("sendMessage")) != 1+3 {
		t.Fatalf("500s: err = %v after %d calls; want a passing error after 3 attempts", err, len(fake.Calls("sendMessage"))-1)
	}
}
