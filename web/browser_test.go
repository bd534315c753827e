package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/testkit"
	"github.com/membot/membot/internal/testing/wait"
	"github.com/membot/membot/web"
)

// browser is a headless Chromium (Debian's chromium package) driven by
// chromedp; without one the test is skipped by name, and with CI=true it
// fails.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s needs a headless Chromium (CI=true, so this fails): apt-get install chromium", t.Name())
		}
		t.Skipf("WARNING: %s skipped: no Chromium on this machine (Debian: apt-get install chromium)", t.Name())
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.WindowSize(412, 915), // a phone's screen
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(alloc)
	ctx, cancelTime := context.WithTimeout(ctx, 4*wait.Timeout())
	t.Cleanup(func() { cancelTime(); cancelCtx(); cancelAlloc() })
	return ctx
}

// screenshot saves the page as .artifacts/screenshots/NAME.png under the
// clone, for CI to keep and people to look at.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	dir := filepath.Join("..", ".artifacts", "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// get runs one step that reads something from the page.
func get[T any](t *testing.T, ctx context.Context, step chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, step)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestInABrowserAnAdminSignsInSeesAndForgetsAFact(t *testing.T) {
	t.Parallel()
	ctx := browser(t)
	s := signedIn(t, "DAILY_TOKEN_LIMIT", "50000")
	s.remember(jane, "Lives in Tallinn")
	s.LLM.Script(openaifake.Reply{Content: "Noted <b>that</b> \u202eevil"})
	s.Say(jane, "<script>alert(1)</script> hello")

	run := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	link := s.base + "/signin?token=" + s.link()
	run("sign in with the link from /web",
		chromedp.Navigate(link),
		chromedp.Click(chromedp.ID("signin")),
		chromedp.WaitVisible(chromedp.CSS(".cards")),
	)
	screenshot(t, ctx, "overview")

	run("open jane's memory", chromedp.Navigate(fmt.Sprintf("%s/memory/%d", s.base, jane.ID)))
	facts := get(t, ctx, chromedp.Text(chromedp.CSS(".facts")))
	if !strings.Contains(facts, "Lives in Tallinn") {
		t.Fatalf("the memory page shows %q", facts)
	}
	screenshot(t, ctx, "memory")
	run("forget the fact on the page",
		chromedp.Click(chromedp.CSS(`button[name="forget"]`)),
		chromedp.WaitNotPresent(chromedp.CSS(`button[name="forget"]`)),
	)
	s.LLM.Script(openaifake.Reply{Content: "Hi."})
	s.Say(jane, "where do I live?")
	reqs := s.LLM.Requests()
	if body, _ := json.Marshal(reqs[len(reqs)-1]); strings.Contains(string(body), "Tallinn") {
		t.Errorf("the fact forgotten on the page reached the next model request")
	}

	run("open the usage page", chromedp.Navigate(s.base+"/usage"), chromedp.WaitVisible(chromedp.ID("usage-days")))
	rows := get(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("#usage-days tbody tr")).map(r => r.innerText)`))
	drawn := get(t, ctx, chromedp.AttributeValue(chromedp.ID("usage-chart"), "data-drawn")).Value
	if len(rows) == 0 || !strings.Contains(rows[len(rows)-1], time.Now().In(time.FixedZone("MSK", 3*3600)).Format("2006-01-02")) {
		t.Errorf("the usage table's rows: %q", rows)
	}
	if drawn == "" || drawn == "0" {
		t.Errorf("the chart drew %q days", drawn)
	}
	screenshot(t, ctx, "usage")

	run("open the conversation with hostile texts",
		chromedp.Navigate(s.base+"/chats"),
		chromedp.Click(chromedp.CSS(`table a[href^="/chats/"]`)),
		chromedp.WaitVisible(chromedp.CSS(".messages")),
	)
	messages := get(t, ctx, chromedp.Text(chromedp.CSS(".messages")))
	alerted := get(t, ctx, chromedp.Evaluate[bool](`document.querySelectorAll(".messages script, .messages b").length > 0`))
	if alerted || !strings.Contains(messages, "<script>alert(1)</script>") {
		t.Errorf("a stored text became markup, or is not shown as text: %q", messages)
	}
	screenshot(t, ctx, "conversation")
}

func TestInABrowserTheMiniAppShowsTheUsersMemory(t *testing.T) {
	t.Parallel()
	ctx := browser(t)
	s := signedIn(t)
	s.remember(jane, "Has a cat called Murka")
	initData := web.SignInitData(web.TelegramUser{ID: jane.ID, FirstName: jane.FirstName, LanguageCode: "en"}, testkit.Token, time.Now())
	// Telegram opens a Mini App with its launch data in the fragment.
	open := s.base + "/app#tgWebAppData=" + url.QueryEscape(initData) + "&tgWebAppVersion=9.0"

	if err := chromedp.Do(ctx, chromedp.Navigate(open), chromedp.WaitVisible(chromedp.CSS("#facts .fact"))); err != nil {
		t.Fatal(err)
	}
	facts := get(t, ctx, chromedp.Text(chromedp.ID("facts")))
	if !strings.Contains(facts, "Murka") {
		t.Fatalf("the Mini App shows %q", facts)
	}
	// Where the fact came from: the day (on the device, the browser's
	// zone being this machine's) and the user's words.
	if from := "From what you wrote on " + time.Now().Format("2006-01-02"); !strings.Contains(facts, from) ||
		!strings.Contains(facts, "«please remember: Has a cat called Murka»") {
		t.Errorf("the Mini App does not show where the fact came from: %q", facts)
	}
	screenshot(t, ctx, "mini-app")

	// Two facts of one exchange: forgetting one forgets the exchange, and
	// the other then says it came from a forgotten conversation, without
	// its words.
	s.LLM.Script(
		openaifake.Reply{ToolCalls: []openai.ToolCall{
			openaifake.ToolCall("r1", "remember", `{"fact":"Lives in Tallinn"}`),
			openaifake.ToolCall("r2", "remember", `{"fact":"Works at night"}`),
		}},
		openaifake.Reply{Content: "Noted both."},
	)
	s.Say(jane, "I live in Tallinn and work at night")
	var tallinn int64
	if err := s.DB.QueryRow(context.Background(), `SELECT id FROM memories WHERE content = 'Lives in Tallinn'`).Scan(&tallinn); err != nil {
		t.Fatal(err)
	}
	if p := s.miniApp("POST", fmt.Sprintf("/app/api/facts/%d/forget", tallinn), initData, url.Values{}); p.status != http.StatusOK {
		t.Fatalf("forget: %d %s", p.status, p.body)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(open), chromedp.WaitVisible(chromedp.CSS("#facts .fact"))); err != nil {
		t.Fatal(err)
	}
	facts = get(t, ctx, chromedp.Text(chromedp.ID("facts")))
	if !strings.Contains(facts, "Works at night\nsaved when asked") || !strings.Contains(facts, "From a conversation you had the bot forget.") ||
		strings.Contains(facts, "Tallinn") {
		t.Errorf("after forgetting a fact of the same exchange the Mini App shows %q", facts)
	}

	// In Russian for a user who writes in Russian.
	s.LLM.Script(
		openaifake.Reply{ToolCalls: []openai.ToolCall{openaifake.ToolCall("r3", "remember", `{"fact":"Играет на виолончели"}`)}},
		openaifake.Reply{Content: "Запомнил."},
	)
	s.Say(ivan, "я играю на виолончели")
	asIvan := web.SignInitData(web.TelegramUser{ID: ivan.ID, FirstName: ivan.FirstName, LanguageCode: "ru"}, testkit.Token, time.Now())
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(s.base+"/app#tgWebAppData="+url.QueryEscape(asIvan)),
		chromedp.WaitVisible(chromedp.CSS("#facts .fact"))); err != nil {
		t.Fatal(err)
	}
	if facts := get(t, ctx, chromedp.Text(chromedp.ID("facts"))); !strings.Contains(facts, "Из того, что вы написали") || !strings.Contains(facts, "«я играю на виолончели»") {
		t.Errorf("ivan's Mini App shows %q", facts)
	}

	if err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/app"), chromedp.WaitVisible(chromedp.ID("status"))); err != nil {
		t.Fatal(err)
	}
	if status := get(t, ctx, chromedp.Text(chromedp.ID("status"))); !strings.Contains(status, "from the bot in Telegram") {
		t.Errorf("the Mini App opened without launch data says %q", status)
	}
}

func TestInABrowserAnAdminAllowsAPairingRequest(t *testing.T) {
	t.Parallel()
	ctx := browser(t)
	s := signedIn(t, "ACCESS", "owner")
	s.askAccess()
	link := s.base + "/signin?token=" + s.link()
	if err := chromedp.Do(ctx,
		chromedp.Navigate(link),
		chromedp.Click(chromedp.ID("signin")),
		chromedp.WaitVisible(chromedp.CSS(".cards")),
		chromedp.Navigate(s.base+"/access"),
		chromedp.WaitVisible(chromedp.ID("requests")),
	); err != nil {
		t.Fatal(err)
	}
	if who := get(t, ctx, chromedp.Text(chromedp.ID("requests"))); !strings.Contains(who, "Иван") {
		t.Fatalf("the requests waiting: %q", who)
	}
	screenshot(t, ctx, "access")
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`button[name="allow"]`)),
		chromedp.WaitVisible(chromedp.ID("grants")),
	); err != nil {
		t.Fatal(err)
	}
	if grants := get(t, ctx, chromedp.Text(chromedp.ID("grants"))); !strings.Contains(grants, "allowed") || !strings.Contains(grants, "Иван") {
		t.Errorf("after Allow the page lists %q", grants)
	}
	s.LLM.Script(openaifake.Reply{Content: "Здравствуйте!"})
	if got := s.Say(ivan, "теперь можно?"); got != "Здравствуйте!" {
		t.Fatalf("ivan, allowed from the page, is answered %q", got)
	}
}
