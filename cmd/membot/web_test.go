package main

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/membot/membot/internal/testing/testkit"
	"github.com/membot/membot/internal/testing/wait"
)

// TestTheOverviewRunsTheDoctorsChecks: the command line gives the web
// interface membot doctor's checks; the overview runs them when asked,
// never on its own, and shows no secret.
func TestTheOverviewRunsTheDoctorsChecks(t *testing.T) {
	t.Parallel()
	for _, access := range []string{"open", "owner"} {
		t.Run(access, func(t *testing.T) { t.Parallel(); overviewChecks(t, access) })
	}
}

// overviewChecks runs the overview's checks of a bot in mode access; an
// unclaimed bot's claim code is never on the page, whoever reads it.
func overviewChecks(t *testing.T, access string) {
	h := newHarness(t)
	h.Env["WEB_ADDR"], h.Env["ACCESS"] = "127.0.0.1:0", access
	var logs syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"membot"}, testkit.Lookup(h.Env), io.Discard, &logs) }()
	t.Cleanup(func() { cancel(); <-done })

	var base string
	re := regexp.MustCompile(`web server listening" addr=(\S+)`)
	if !wait.Until(10*time.Millisecond, func() bool {
		m := re.FindStringSubmatch(logs.String())
		if m != nil {
			base = "http://" + m[1]
		}
		return m != nil
	}) {
		t.Fatalf("the web interface did not start:\n%s", logs.String())
	}
	get := func() string {
		resp, err := http.Get(base + "/")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	home := get()
	if !strings.Contains(home, "have not run since the bot started") || !strings.Contains(home, `id="run-checks"`) {
		t.Fatalf("the overview ran the checks unasked, or offers no button:\n%s", home)
	}
	token := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(home)
	req, err := http.NewRequest("POST", base+"/checks", strings.NewReader(url.Values{"csrf": {token[1]}}.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base) // as the overview's own form sends it
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode >= 400 {
		t.Fatalf("running the checks was answered %d", resp.StatusCode)
	}
	// The checks run in the background: the overview shows them once done.
	if !wait.Until(20*time.Millisecond, func() bool { home = get(); return strings.Contains(home, `id="checks"`) }) {
		t.Fatalf("the checks did not finish:\n%s", home)
	}
	for _, want := range []string{`id="checks"`, "database", "telegram", "✓"} {
		if !strings.Contains(home, want) {
			t.Errorf("the overview after the checks lacks %q:\n%s", want, home)
		}
	}
	if strings.Contains(home, testkit.Token) || strings.Contains(home, testkit.APIKey) {
		t.Error("the checks show a secret")
	}
	if access == "owner" && (strings.Contains(home, "?start=") || !strings.Contains(home, "the claim link is in the bot&#39;s start-up log")) {
		t.Errorf("an unclaimed bot's overview shows the claim, or not where it is:\n%s", home)
	}
}
