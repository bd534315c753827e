package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/membot/membot/internal/openaifake"
	"github.com/membot/membot/internal/pgtest"
	"github.com/membot/membot/internal/telegramfake"
)

const testToken = "123456:TEST-token-never-logged"

// harness is a database, a fake Telegram and a fake LLM, and the real bot
// (run, in-process) started against them.
type harness struct {
	t     *testing.T
	DB    *pgxpool.Pool
	DSN   string
	TG    *telegramfake.Server
	LLM   *openaifake.Server
	Env   map[string]string
	logs  *syncBuffer
	stop  func() error
	alive bool
	ended chan struct{} // closed when run returns
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	h := &harness{t: t, DSN: pgtest.New(t), TG: telegramfake.New(testToken), LLM: openaifake.New(), logs: &syncBuffer{}}
	t.Cleanup(h.TG.Close)
	t.Cleanup(h.LLM.Close)
	pool, err := pgxpool.New(context.Background(), h.DSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	h.DB = pool
	h.Env = map[string]string{
		"TELEGRAM_BOT_TOKEN": testToken,
		"TELEGRAM_API_URL":   h.TG.URL(),
		"DATABASE_URL":       h.DSN,
		"OPENAI_API_KEY":     "sk-test-key-never-logged",
		"OPENAI_BASE_URL":    h.LLM.URL(),
		"OPENAI_MODEL":       "test-model",
		"POLL_TIMEOUT":       "1s",
		"LOG_LEVEL":          "debug",
		"ENV_FILE":           "/dev/null",
		// Tests send dozens of messages to one chat; the limiter (on by
		// default) has tests of its own.
		"TELEGRAM_RATE_LIMIT": "off",
	}
	t.Cleanup(func() {
		if h.alive {
			h.alive = false
			if err := h.stop(); err != nil { // not Fatal: the logs below must still be shown
				t.Errorf("stopping the bot: %v", err)
			}
		}
		for _, secret := range []string{testToken, "sk-test-key-never-logged"} {
			if strings.Contains(h.logs.String(), secret) {
				t.Errorf("a secret appears in the logs:\n%s", h.logs.String())
			}
		}
		if t.Failed() {
			t.Logf("bot logs:\n%s", h.logs.String())
		}
	})
	return h
}

// Start runs the bot until Stop.
func (h *harness) Start() {
	h.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	ended := make(chan struct{})
	getenv := func(k string) string { return h.Env[k] }
	go func() { done <- run(ctx, []string{"membot"}, getenv, h.logs, h.logs); close(ended) }()
	h.stop = func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(30 * time.Second):
			return errors.New("the bot did not stop within 30 s")
		}
	}
	h.alive = true
	h.ended = ended
}

// Running reports whether run is still going (it has not crashed or quit).
func (h *harness) Running() bool {
	select {
	case <-h.ended:
		return false
	default:
		return true
	}
}

// Stop stops the bot and fails the test if run returned an error.
func (h *harness) Stop() {
	h.t.Helper()
	h.alive = false
	if err := h.stop(); err != nil {
		h.t.Fatalf("run returned %v", err)
	}
}

// Say sends a private message from user and waits for the bot's next reply
// to that chat, returning its text.
func (h *harness) Say(from telegramfake.User, text string) string {
	h.t.Helper()
	return h.SayIn(from.ID, "private", from, text)
}

// SayIn sends a text message to any chat and waits for the bot's next reply there.
func (h *harness) SayIn(chatID int64, chatType string, from telegramfake.User, text string) string {
	h.t.Helper()
	return h.Expect(chatID, func() { h.TG.SendMessage(chatID, chatType, from, text) }).Text
}

// Expect runs send and waits for the bot's next message to the chat.
func (h *harness) Expect(chatID int64, send func()) telegramfake.Sent {
	h.t.Helper()
	before := len(h.TG.SentTo(chatID))
	send()
	sent, ok := h.TG.WaitFor(15*time.Second, func(sent []telegramfake.Sent) bool { return countTo(sent, chatID) > before })
	if !ok {
		h.t.Fatalf("no reply in chat %d within 15 s; sent so far: %+v", chatID, sent)
	}
	var mine []telegramfake.Sent
	for _, m := range sent {
		if m.ChatID == chatID {
			mine = append(mine, m)
		}
	}
	return mine[before]
}

// countTo counts the messages sent to one chat.
func countTo(sent []telegramfake.Sent, chatID int64) int {
	n := 0
	for _, m := range sent {
		if m.ChatID == chatID {
			n++
		}
	}
	return n
}

// WaitIdle waits until every stored update is handled: a reply reaches
// Telegram a moment before its delivery is recorded.
func (h *harness) WaitIdle() {
	h.t.Helper()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if h.Count(`SELECT count(*) FROM updates WHERE state <> 'done'`) == 0 {
			return
		}
	}
	h.t.Fatal("updates still unfinished after 15 s")
}

// WaitDone waits until the update is handled.
func (h *harness) WaitDone(updateID int64) {
	h.t.Helper()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if h.Count(`SELECT count(*) FROM updates WHERE update_id = $1 AND state = 'done'`, updateID) == 1 {
			return
		}
	}
	h.t.Fatalf("update %d not handled after 15 s", updateID)
}

// Count runs a count(*) query.
func (h *harness) Count(query string, args ...any) int {
	h.t.Helper()
	var n int
	if err := h.DB.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		h.t.Fatalf("%s: %v", query, err)
	}
	return n
}

// syncBuffer is a bytes.Buffer safe for the bot's concurrent log writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
