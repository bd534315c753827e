package main

import (
	"github.com/membot/membot/internal/testing/wait"

	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/tcpproxy"
	"github.com/membot/membot/internal/testing/telegramfake"
)

// proxyDatabase puts a cuttable proxy between the bot and its database
// (h.DB still connects directly). The bot is stopped before the proxy closes.
func proxyDatabase(h *harness) *tcpproxy.Proxy {
	h.T.Helper()
	dsn, _ := url.Parse(h.DSN)
	proxy, err := tcpproxy.New(dsn.Host)
	if err != nil {
		h.T.Fatal(err)
	}
	h.T.Cleanup(func() {
		if h.Alive() {
			h.Stop()
		}
		proxy.Close()
	})
	dsn.Host = proxy.Addr()
	h.Env["DATABASE_URL"] = dsn.String()
	return proxy
}

// The database goes away mid-stream (every connection cut, new ones
// refused) and comes back: the bot keeps running, confirms to Telegram only
// what it stored, and then answers every message once, in order.
func TestADatabaseOutageLosesNothingAndAnswersEachMessageOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	proxy := proxyDatabase(h)
	h.LLM.RespondWith(func(req openai.ChatCompletionRequest) openaifake.Reply {
		r := openaifake.Echo(req)
		r.Delay = 30 * time.Millisecond // so the cut lands mid-turn
		return r
	})
	h.Start()
	h.Say(jane, "warm up")

	users := []telegramfake.User{jane, ivan, {ID: 503, FirstName: "Ann", LanguageCode: "en"}}
	want := map[int64][]string{jane.ID: {"echo: warm up"}}
	send := func(round int) []int64 {
		var ids []int64
		for _, u := range users {
			text := fmt.Sprintf("chat %d message %d", u.ID, round)
			ids = append(ids, h.TG.SendText(u, text))
			want[u.ID] = append(want[u.ID], "echo: "+text)
		}
		return ids
	}

	for round := range 3 {
		send(round)
	}
	proxy.Cut()
	logged := len(h.Logs.String())
	var unstored []int64
	for round := 3; round < 6; round++ {
		unstored = append(unstored, send(round)...)
	}
	// Wait until the bot has fetched updates it cannot store, and tried again.
	for deadline := time.Now().Add(wait.Timeout()); strings.Count(h.Logs.String()[logged:], "storing updates failed") < 2; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the bot never tried to store updates during the outage")
		}
	}
	if n := h.Count(`SELECT count(*) FROM updates WHERE update_id = ANY($1)`, unstored); n != 0 {
		t.Fatalf("%d updates stored through a cut connection", n)
	}
	if pending := h.TG.Pending(); pending < len(unstored) {
		t.Fatalf("only %d updates still unconfirmed at Telegram; the %d the bot could not store must all be", pending, len(unstored))
	}
	if !h.Running() {
		t.Fatal("the bot stopped during the outage")
	}

	proxy.Restore()
	for _, u := range users {
		h.WaitShown(u.ID, len(want[u.ID]), 2*wait.Timeout())
	}
	h.WaitIdle()
	for _, u := range users {
		if got := h.Shown(u.ID); strings.Join(got, "|") != strings.Join(want[u.ID], "|") {
			t.Errorf("chat %d got\n%q\nwant each once, in order:\n%q", u.ID, got, want[u.ID])
		}
	}
	if n := h.Count(`SELECT count(*) FROM updates WHERE error IS NOT NULL`); n != 0 {
		t.Errorf("%d updates were given up", n)
	}
	if n := h.Count(`SELECT count(*) FROM (SELECT update_id FROM messages WHERE role = 'assistant' GROUP BY 1 HAVING count(*) > 1) d`); n != 0 {
		t.Errorf("%d messages have more than one stored answer", n)
	}
	if pending := h.TG.Pending(); pending != 0 {
		t.Errorf("%d updates never confirmed", pending)
	}
}

// A bot started while its database is away waits for it instead of
// exiting (a crash loop, under a supervisor), then starts by itself.
func TestTheBotWaitsForADatabaseThatIsDownAtStart(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	proxy := proxyDatabase(h)
	proxy.Cut()
	h.Start()
	h.TG.SendText(jane, "anyone there?")
	for deadline := time.Now().Add(wait.Timeout()); strings.Count(h.Logs.String(), "database unreachable; retrying") < 2; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the bot did not retry the unreachable database")
		}
	}
	if !h.Running() {
		t.Fatal("the bot exited while the database was down")
	}
	// The cut connection ends with a FIN or, on a busy machine, a reset:
	// the cause names PostgreSQL, or the address when the error holds it.
	if want := `cause="(PostgreSQL|127\.0\.0\.1:\d+) closed the connection: check DATABASE_URL: its host, port and scheme"`; !regexp.MustCompile(want).MatchString(h.Logs.String()) {
		t.Errorf("the wait does not say why: no %s", want)
	}
	proxy.Restore()
	h.WaitShown(jane.ID, 1, wait.Timeout())
	h.WaitIdle()
	if got := h.Shown(jane.ID); len(got) != 1 || got[0] != "echo: anyone there?" {
		t.Fatalf("jane got %q", got)
	}
}
