package main

import (
	"github.com/membot/membot/internal/testing/wait"

	"context"
	"net/url"
	"testing"
	"time"

	"github.com/membot/membot/internal/testing/openaifake"
)

// withAppName tags the bot's database connections so a test can count them.
func withAppName(t *testing.T, dsn, name string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("application_name", name)
	u.RawQuery = q.Encode()
	return u.String()
}

// waitForModel waits until the model has received n requests.
func waitForModel(h *harness, n int) {
	h.T.Helper()
	for deadline := time.Now().Add(wait.Timeout()); len(h.LLM.Requests()) < n; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			h.T.Fatalf("the model got %d requests, want %d", len(h.LLM.Requests()), n)
		}
	}
}

// The bot's connections to its database: the pool and the owner lock.
func botConnections(h *harness) int {
	return h.Count(`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'membot-under-test'`)
}

func waitNoBotConnections(h *harness) {
	h.T.Helper()
	for deadline := time.Now().Add(wait.Timeout()); botConnections(h) > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			h.T.Fatalf("%d database connections still open after the bot stopped", botConnections(h))
		}
	}
}

// On SIGTERM a turn in flight finishes and is answered; what arrives after
// the stop began is not taken (Telegram keeps it); the pool is closed.
func TestShutdownFinishesTheTurnInFlightAndTakesNothingNew(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["DATABASE_URL"] = withAppName(t, h.DSN, "membot-under-test")
	h.Env["SHUTDOWN_TIMEOUT"] = "30s"
	h.LLM.Script(openaifake.Reply{Content: "finished in time", Delay: 500 * time.Millisecond})
	h.Start()
	slow := h.TG.SendText(jane, "slow question")
	waitForModel(h, 1)
	if botConnections(h) == 0 {
		t.Fatal("no bot connections seen: the count below would prove nothing")
	}

	stopped := h.StopAsync()
	h.WaitLog("shutting down")
	h.TG.SendText(ivan, "too late")
	if err := <-stopped; err != nil {
		t.Fatalf("run returned %v", err)
	}
	if got := h.Shown(jane.ID); len(got) != 1 || got[0] != "finished in time" {
		t.Fatalf("the turn in flight sent %q", got)
	}
	if n := h.Count(`SELECT count(*) FROM updates WHERE update_id = $1 AND state = 'done'`, slow); n != 1 {
		t.Fatal("the finished turn's update is not done")
	}
	if n := h.TG.Pending(); n != 1 {
		t.Fatalf("%d updates unconfirmed at Telegram, want 1 (the message sent after the stop)", n)
	}
	if len(h.Shown(ivan.ID)) != 0 || len(h.LLM.Requests()) != 1 {
		t.Fatal("a message sent after the stop began was answered")
	}
	waitNoBotConnections(h)

	h.Start() // the next start answers what the last one left
	h.WaitShown(ivan.ID, 1, wait.Timeout())
	h.WaitIdle()
	if got := h.Shown(ivan.ID); len(got) != 1 || got[0] != "echo: too late" {
		t.Fatalf("after the restart ivan got %q", got)
	}
}

// A turn that cannot finish within SHUTDOWN_TIMEOUT is abandoned and handed
// back: the next start answers it, once.
func TestShutdownHandsBackATurnThatOverrunsTheDeadline(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["DATABASE_URL"] = withAppName(t, h.DSN, "membot-under-test")
	h.Env["SHUTDOWN_TIMEOUT"] = "200ms"
	h.LLM.Script(openaifake.Reply{Content: "never sent", Delay: time.Hour})
	h.Start()
	slow := h.TG.SendText(jane, "very slow question")
	waitForModel(h, 1)
	if err := <-h.StopAsync(); err != nil {
		t.Fatalf("run returned %v", err)
	}

	if got := h.Shown(jane.ID); len(got) != 0 {
		t.Fatalf("an abandoned turn sent %q", got)
	}
	if n := h.Count(`SELECT count(*) FROM updates WHERE update_id = $1 AND state = 'pending'`, slow); n != 1 {
		t.Fatal("the abandoned update is not handed back for the next start")
	}
	waitNoBotConnections(h)

	h.Start()
	h.WaitDone(slow)
	if got := h.Shown(jane.ID); len(got) != 1 || got[0] != "echo: very slow question" {
		t.Fatalf("after the restart jane got %q", got)
	}
	var attempts, crashes int
	h.DB.QueryRow(context.Background(), `SELECT attempts, crashes FROM updates WHERE update_id = $1`, slow).Scan(&attempts, &crashes)
	if attempts != 2 || crashes != 0 {
		t.Errorf("attempts = %d, crashes = %d; want 2 and 0 (a clean stop is no crash)", attempts, crashes)
	}
}
