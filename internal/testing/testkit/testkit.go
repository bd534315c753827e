// Package testkit starts the real bot (the production wiring of
// internal/app, in-process) against a fresh database, a fake Telegram and
// a fake model, and gives tests the means to talk to it as a user would:
// send messages, press buttons, wait for answers, read the rows. Each
// package's feature tests use it; cmd/membot keeps the whole-process ones.
package testkit

import (
	"github.com/membot/membot/internal/testing/wait"

	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/membot/membot/cmd/membot/app"
	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/pgtest"
	"github.com/membot/membot/internal/testing/telegramfake"
)

// Token and APIKey are the secrets the bot under test is given; a test
// fails if either appears in its logs.
const (
	Token  = "123456:TEST-token-never-logged"
	APIKey = "sk-test-key-never-logged"
)

// Two users the tests talk as: one writing in Russian, one in English.
var (
	Ivan = telegramfake.User{ID: 501, FirstName: "Иван", Username: "ivan", LanguageCode: "ru"}
	Jane = telegramfake.User{ID: 502, FirstName: "Jane", LanguageCode: "en"}
)

// Harness is a database, a fake Telegram and a fake LLM, and the real bot
// (run, in-process) started against them.
type Harness struct {
	T      *testing.T
	DB     *pgxpool.Pool
	DSN    string
	TG     *telegramfake.Server
	LLM    *openaifake.Server
	Env    map[string]string
	Logs   *SyncBuffer // what the bot logged
	stop   func() error
	alive  bool
	ended  chan struct{} // closed when run returns
	starts int           // how many times Start ran the bot
}

// New prepares a harness; Start starts the bot.
func New(t *testing.T) *Harness {
	t.Helper()
	h := &Harness{T: t, DSN: pgtest.New(t), TG: telegramfake.New(Token), LLM: openaifake.New(), Logs: &SyncBuffer{}}
	t.Cleanup(h.TG.Close)
	t.Cleanup(h.LLM.Close)
	pool, err := pgxpool.New(context.Background(), h.DSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	h.DB = pool
	h.Env = map[string]string{
		"TELEGRAM_BOT_TOKEN": Token,
		"TELEGRAM_API_URL":   h.TG.URL(),
		"DATABASE_URL":       h.DSN,
		"OPENAI_API_KEY":     APIKey,
		"OPENAI_BASE_URL":    h.LLM.URL(),
		"OPENAI_MODEL":       "test-model",
		"POLL_TIMEOUT":       "1s",
		"LOG_LEVEL":          "debug",
		"ENV_FILE":           "/dev/null",
		// Streamed answers are edited at most this often; the default (1 s)
		// would add a second to most turns against the instant fake model.
		"STREAM_EDIT_INTERVAL": "10ms",
		// Tests send dozens of messages to one chat; the limiter (on by
		// default) has tests of its own.
		"TELEGRAM_RATE_LIMIT": "off",
		// The background memory work calls the model after turns; the tests
		// that script the model's answers would see those calls take them.
		// The tests of that work turn it on.
		"AUTO_MEMORY": "off",
		"SUMMARIES":   "off",
		// Tests run side by side: the tests of the web interface listen
		// on a port of their own (WEB_ADDR=127.0.0.1:0).
		"WEB_ADDR": "",
		// The memory work's bound (30 calls a minute) would hold the tests
		// that turn it on for minutes; the bound has a test of its own.
		"MEMORY_CALLS_PER_MINUTE": "100000",
		"EMBEDDINGS_PER_MINUTE":   "100000",
		// Most tests talk as whoever they like: the bot serves everyone. The
		// product's default (the owner claims the bot, strangers ask) has
		// tests of its own, which delete this.
		"ACCESS": "open",
	}
	h.checkLogsAtCleanup()
	return h
}

// Replica is a second bot sharing this harness's database, Telegram and
// model, with a copy of its settings and logs of its own.
func (h *Harness) Replica() *Harness {
	r := &Harness{T: h.T, DB: h.DB, DSN: h.DSN, TG: h.TG, LLM: h.LLM, Env: maps.Clone(h.Env), Logs: &SyncBuffer{}}
	r.checkLogsAtCleanup()
	return r
}

func (h *Harness) checkLogsAtCleanup() {
	t := h.T
	t.Cleanup(func() {
		if h.alive {
			h.alive = false
			if err := h.stop(); err != nil { // not Fatal: the logs below must still be shown
				t.Errorf("stopping the bot: %v", err)
			}
		}
		for _, secret := range []string{Token, APIKey} {
			if strings.Contains(h.Logs.String(), secret) {
				t.Errorf("a secret appears in the logs:\n%s", h.Logs.String())
			}
		}
		if t.Failed() {
			t.Logf("bot logs:\n%s", h.Logs.String())
		}
	})
}

// WaitLog waits for a log line matching pattern and returns its submatches.
func (h *Harness) WaitLog(pattern string) []string {
	h.T.Helper()
	re := regexp.MustCompile(pattern)
	for deadline := time.Now().Add(wait.Timeout()); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := re.FindStringSubmatch(h.Logs.String()); m != nil {
			return m
		}
	}
	h.T.Fatalf("no log line matches %q within 15 s", pattern)
	return nil
}

// Start runs the bot until Stop.
func (h *Harness) Start() {
	h.T.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	ended := make(chan struct{})
	go func() { done <- run(ctx, Lookup(h.Env), h.Logs); close(ended) }()
	h.stop = func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(wait.Timeout()):
			return errors.New("the bot did not stop within 30 s")
		}
	}
	h.alive = true
	h.ended = ended
	h.starts++
}

// WaitRunning waits until the bot Start ran last says it is running: its
// intake and background work have started.
func (h *Harness) WaitRunning() {
	h.T.Helper()
	h.WaitUntil("the bot is not running", func() bool {
		return strings.Count(h.Logs.String(), `msg="membot is running"`) >= h.starts
	})
}

// Running reports whether run is still going (it has not crashed or quit).
func (h *Harness) Running() bool {
	select {
	case <-h.ended:
		return false
	default:
		return true
	}
}

// StopAsync asks the bot to stop and returns what it returns, when it has.
func (h *Harness) StopAsync() <-chan error {
	h.alive = false
	stopped := make(chan error, 1)
	go func() { stopped <- h.stop() }()
	return stopped
}

// Alive tells whether the test started the bot and has not stopped it.
func (h *Harness) Alive() bool { return h.alive }

// Stop stops the bot and fails the test if run returned an error.
func (h *Harness) Stop() {
	h.T.Helper()
	h.alive = false
	if err := h.stop(); err != nil {
		h.T.Fatalf("run returned %v", err)
	}
}

// Say sends a private message from user, waits until the bot has handled
// it, and returns the text of the first message it answered with, as it
// stands at the end (a streamed answer is edited while it is written).
func (h *Harness) Say(from telegramfake.User, text string) string {
	h.T.Helper()
	return h.SayAll(from, text)[0].Text
}

// SayIn sends a text message to any chat, waits until the bot has handled
// it, and returns the first message it answered with, as it stands at the end.
func (h *Harness) SayIn(chatID int64, chatType string, from telegramfake.User, text string) string {
	h.T.Helper()
	return h.Expect(chatID, func() int64 { return h.TG.SendMessage(chatID, chatType, from, text) }).Text
}

// Expect runs send, which queues an update and returns its id, waits until
// the bot has handled it, and returns the first message it answered with in
// the chat, as it stands at the end.
func (h *Harness) Expect(chatID int64, send func() int64) telegramfake.Message {
	h.T.Helper()
	last := h.LastMessageID(chatID)
	h.WaitDone(send())
	answer := h.MessagesAfter(chatID, last)
	if len(answer) == 0 {
		h.T.Fatalf("no reply in chat %d; the chat holds %+v", chatID, h.TG.Messages(chatID))
	}
	return answer[0]
}

// SayAll is Say returning every message the bot sent in answer.
func (h *Harness) SayAll(from telegramfake.User, text string) []telegramfake.Message {
	h.T.Helper()
	last := h.LastMessageID(from.ID)
	h.WaitDone(h.TG.SendText(from, text))
	answer := h.MessagesAfter(from.ID, last)
	if len(answer) == 0 {
		h.T.Fatalf("no reply to %q; the chat holds %+v", text, h.TG.Messages(from.ID))
	}
	return answer
}

// WaitDone waits until the bot has handled the update.
func (h *Harness) WaitDone(updateID int64) {
	h.T.Helper()
	for deadline := time.Now().Add(wait.Timeout()); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if h.Count(`SELECT count(*) FROM updates WHERE update_id = $1 AND state = 'done'`, updateID) == 1 {
			return
		}
	}
	h.T.Fatalf("update %d not handled within 15 s", updateID)
}

// Shown returns the texts of the chat's messages as they stand (after any
// edits, without the deleted ones).
func (h *Harness) Shown(chatID int64) []string {
	var texts []string
	for _, m := range h.TG.Messages(chatID) {
		texts = append(texts, m.Text)
	}
	return texts
}

// WaitShown waits up to timeout until the chat shows at least n messages.
func (h *Harness) WaitShown(chatID int64, n int, timeout time.Duration) {
	h.T.Helper()
	for deadline := time.Now().Add(timeout); len(h.Shown(chatID)) < n; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			h.T.Fatalf("chat %d shows %q after %v, want %d messages", chatID, h.Shown(chatID), timeout, n)
		}
	}
}

// MessagesAfter returns the chat's messages newer than message id after.
func (h *Harness) MessagesAfter(chatID, after int64) []telegramfake.Message {
	var out []telegramfake.Message
	for _, m := range h.TG.Messages(chatID) {
		if m.ID > after {
			out = append(out, m)
		}
	}
	return out
}

// LastMessageID is the id of the chat's newest message, or 0.
func (h *Harness) LastMessageID(chatID int64) int64 {
	msgs := h.TG.Messages(chatID)
	if len(msgs) == 0 {
		return 0
	}
	return msgs[len(msgs)-1].ID
}

// Press presses the button with data under msg as user from, waits for the
// bot to answer the press, and returns the notice it showed.
func (h *Harness) Press(from telegramfake.User, msg telegramfake.Message, data string) string {
	h.T.Helper()
	id := h.TG.Press(from, msg, data)
	c, ok := h.TG.WaitCall("answerCallbackQuery", wait.Timeout(), func(c telegramfake.Call) bool {
		return c.Params["callback_query_id"] == id
	})
	if !ok {
		h.T.Fatalf("the press of %q was not answered within 15 s", data)
	}
	return c.Params["text"]
}

// PressForReply presses a button and waits for the next message to the
// chat of msg, returning it.
func (h *Harness) PressForReply(from telegramfake.User, msg telegramfake.Message, data string) telegramfake.Message {
	h.T.Helper()
	before := len(h.TG.Messages(msg.ChatID))
	h.TG.Press(from, msg, data)
	return h.NextTo(msg.ChatID, before, "the press of "+data)
}

// Last returns the last message of the chat.
func (h *Harness) Last(chatID int64) telegramfake.Message {
	h.T.Helper()
	return h.NextTo(chatID, max(len(h.TG.Messages(chatID))-1, 0), "anything")
}

// NextTo waits until the chat has more than before messages and the bot is
// idle, and returns message number before (counting from 0) as it stands
// then: a streamed answer is edited until it is complete.
func (h *Harness) NextTo(chatID int64, before int, what string) telegramfake.Message {
	h.T.Helper()
	h.WaitUntil("no reply to "+what, func() bool { return len(h.TG.Messages(chatID)) > before })
	h.WaitIdle()
	return h.TG.Messages(chatID)[before]
}

// WaitIdle waits until every update queued at Telegram is stored and
// handled: a reply reaches Telegram a moment before its delivery is recorded.
func (h *Harness) WaitIdle() {
	h.T.Helper()
	h.WaitUntil("updates still unfinished", func() bool {
		return h.TG.Pending() == 0 && h.Count(`SELECT count(*) FROM updates WHERE state <> 'done'`) == 0
	})
}

// WaitCount waits until the count(*) query gives want.
func (h *Harness) WaitCount(query string, want int, args ...any) {
	h.T.Helper()
	h.WaitUntil(fmt.Sprintf("%s is not %d", query, want), func() bool { return h.Count(query, args...) == want })
}

// WaitUntil polls cond until it holds, failing the test after
// wait.Timeout.
func (h *Harness) WaitUntil(what string, cond func() bool) {
	h.T.Helper()
	for deadline := time.Now().Add(wait.Timeout()); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	h.T.Fatalf("%s after %v", what, wait.Timeout())
}

// Count runs a count(*) query.
func (h *Harness) Count(query string, args ...any) int {
	h.T.Helper()
	var n int
	if err := h.DB.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		h.T.Fatalf("%s: %v", query, err)
	}
	return n
}

// SyncBuffer is a bytes.Buffer safe for the bot's concurrent log writes.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// run is what `membot run` does: the settings from getenv, then the bot,
// with the timers of its background work short (ShortTimers).
func run(ctx context.Context, getenv app.Getenv, logs io.Writer) error {
	cfg, err := app.LoadConfig(getenv)
	if err != nil {
		return err
	}
	ShortTimers(cfg)
	return app.Run(ctx, cfg, app.NewLogger(cfg, logs))
}

// ShortTimers shortens the timers of the bot's background work, which
// wait for what nobody announces (a row written by hand or by another
// process): at their defaults (seconds to half a minute) a test would
// wait on them longer than its patience on a slow machine. It shortens
// the pauses between a failed model call's attempts too.
func ShortTimers(cfg *app.Config) {
	const short = 200 * time.Millisecond
	cfg.Reminders.Poll = short // reminders and tasks
	cfg.Intake.Sweep = short   // the inbox
	cfg.Memory.Settle = 100 * time.Millisecond
	cfg.Memory.Every = short
	// A model call that fails is repeated after 0.5, 1 and 2 s: 3.5 s of
	// every turn that ends in the apology. The tests count the attempts,
	// and what the user is told, not the pauses between them.
	cfg.Agent.Retry.Backoff = 20 * time.Millisecond
}

// Get fetches url and returns the status and the body.
func Get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Lookup is the environment of a map, as os.LookupEnv: a key with "" is
// set, a missing key is not.
func Lookup(env map[string]string) app.Getenv {
	return func(k string) (string, bool) { v, ok := env[k]; return v, ok }
}
