package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/telegramfake"
	"github.com/membot/membot/internal/testing/testkit"
	"github.com/membot/membot/web"
)

var (
	jane = testkit.Jane // an admin in these tests
	ivan = testkit.Ivan
)

// site is the bot under test and its web interface's address.
type site struct {
	*testkit.Harness
	base string
}

// setup starts the bot with its web interface on a port of its own and
// the settings given.
func setup(t *testing.T, settings ...string) *site {
	t.Helper()
	h := testkit.New(t)
	h.Env["WEB_ADDR"] = "127.0.0.1:0"
	h.Env["ADMIN_USER_IDS"] = fmt.Sprint(jane.ID)
	for i := 0; i+1 < len(settings); i += 2 {
		h.Env[settings[i]] = settings[i+1]
	}
	h.Start()
	m := h.WaitLog(`web server listening" addr=(\S+)`)
	return &site{Harness: h, base: "http://" + m[1]}
}

// remember has the model save fact for user, through the remember tool,
// as a turn of the bot.
func (s *site) remember(user telegramfake.User, fact string) {
	s.T.Helper()
	s.LLM.Script(
		openaifake.Reply{ToolCalls: []openai.ToolCall{openaifake.ToolCall("call_r", "remember", `{"fact":`+quote(fact)+`}`)}},
		openaifake.Reply{Content: "Noted."},
	)
	if got := s.Say(user, "please remember: "+fact); got != "Noted." {
		s.T.Fatalf("the bot answered %q", got)
	}
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// page is a response, read whole.
type page struct {
	status int
	body   string
	header http.Header
}

// do sends a request to the web interface, with the session cookie when
// one is given, and reads the answer.
func (s *site) do(method, path, cookie string, form url.Values, header ...string) page {
	s.T.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, s.base+path, body)
	if err != nil {
		s.T.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if method != http.MethodGet {
		req.Header.Set("Origin", s.base) // as a page of the interface sends it
	}
	if cookie != "" {
		req.AddCookie(&http.Cookie{Name: "__Host-membot_session", Value: cookie})
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		s.T.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		s.T.Fatal(err)
	}
	return page{status: resp.StatusCode, body: string(b), header: resp.Header}
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"|"X-CSRF-Token": "([^"]+)"`)

// csrf is the token a page's forms carry.
func csrf(t *testing.T, p page) string {
	t.Helper()
	m := csrfField.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("the page has no CSRF token:\n%s", p.body)
	}
	return m[1] + m[2]
}

func TestLoopbackPagesShowAndForgetWhatTheBotRemembers(t *testing.T) {
	t.Parallel()
	s := setup(t)
	s.remember(jane, "Lives in Tallinn")

	home := s.do("GET", "/", "", nil)
	if home.status != http.StatusOK || !strings.Contains(home.body, "users") {
		t.Fatalf("the overview: %d\n%s", home.status, home.body)
	}
	if csp := home.header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe") {
		t.Errorf("Content-Security-Policy is %q", csp)
	}
	mem := s.do("GET", fmt.Sprintf("/memory/%d", jane.ID), "", nil)
	if !strings.Contains(mem.body, "Lives in Tallinn") || !strings.Contains(mem.body, "the exchange it came from") {
		t.Fatalf("Jane's memory page does not show her fact with its source:\n%s", mem.body)
	}

	var asJSON struct {
		Facts []struct {
			ID      int64  `json:"id"`
			Content string `json:"content"`
			Source  *struct {
				Content string `json:"content"`
			} `json:"source"`
		} `json:"facts"`
	}
	raw := s.do("GET", fmt.Sprintf("/memory/%d", jane.ID), "", nil, "Accept", "application/json")
	if err := json.Unmarshal([]byte(raw.body), &asJSON); err != nil || len(asJSON.Facts) != 1 || asJSON.Facts[0].Source == nil ||
		!strings.Contains(asJSON.Facts[0].Source.Content, "please remember") {
		t.Fatalf("the page's JSON: %v\n%s", err, raw.body)
	}
	id := asJSON.Facts[0].ID
	forget := fmt.Sprintf("/memory/%d/facts/%d/forget", jane.ID, id)

	if p := s.do("POST", forget, "", url.Values{}); p.status != http.StatusForbidden {
		t.Fatalf("a change without the page's CSRF token was answered %d", p.status)
	}
	if p := s.do("POST", forget, "", url.Values{"csrf": {csrf(t, mem)}}, "Origin", "http://evil.example"); p.status != http.StatusForbidden {
		t.Fatalf("a change from another site's page was answered %d", p.status)
	}
	if p := s.do("POST", forget, "", url.Values{"csrf": {csrf(t, mem)}}); p.status != http.StatusSeeOther {
		t.Fatalf("forget: %d\n%s", p.status, p.body)
	}
	s.WaitCount(`SELECT count(*) FROM events WHERE type = 'web_change' AND payload->>'action' = 'forget_fact'`, 1)

	// The same forget as /forget: the fact is in no later request.
	s.LLM.Script(openaifake.Reply{Content: "Hello."})
	s.Say(jane, "hi")
	reqs := s.LLM.Requests()
	if body, _ := json.Marshal(reqs[len(reqs)-1]); strings.Contains(string(body), "Tallinn") {
		t.Errorf("the forgotten fact reached the model: %s", body)
	}
	if p := s.do("GET", fmt.Sprintf("/memory/%d", jane.ID), "", nil); strings.Contains(p.body, "Lives in Tallinn</bdi></div>\n<div class=\"meta\">#") {
		t.Errorf("the fact is still shown as current:\n%s", p.body)
	}
}

func TestTheLoopbackInterfaceAnswersOnlyItsLoopbackHost(t *testing.T) {
	t.Parallel()
	s := setup(t)
	// A page of another site that renamed itself to 127.0.0.1 (DNS
	// rebinding) still says its own name in Host.
	p := s.do("GET", "/", "", nil, "Host", "evil.example")
	if p.status != http.StatusMisdirectedRequest {
		t.Fatalf("a request for host evil.example was answered %d", p.status)
	}
	// A proxy that rewrites Host to the loopback would put the pages,
	// login-less, on the Internet: what it adds gives it away.
	for _, header := range []string{"X-Forwarded-For", "Forwarded", "Via", "X-Real-IP"} {
		if p := s.do("GET", "/", "", nil, header, "203.0.113.7"); p.status != http.StatusMisdirectedRequest {
			t.Errorf("a request through a proxy (%s) was answered %d", header, p.status)
		}
	}
	// Without a login, a change must come from a page of the interface.
	home := s.do("GET", "/", "", nil)
	if p := s.do("POST", "/checks", "", url.Values{"csrf": {csrf(t, home)}}, "Origin", ""); p.status != http.StatusForbidden {
		t.Errorf("a change with no Origin on a login-less interface was answered %d", p.status)
	}
}

func TestAPublicAddressWithoutWebURLKeepsThePagesOff(t *testing.T) {
	t.Parallel()
	h := testkit.New(t)
	h.Env["WEB_ADDR"] = "0.0.0.0:0"
	h.Start()
	h.WaitLog(`the web interface is off: WEB_ADDR 0.0.0.0:0 is not a loopback address and WEB_URL is not set`)
	if got := h.Say(jane, "still there?"); got == "" {
		t.Fatal("the bot does not answer")
	}
	if strings.Contains(h.Logs.String(), "web server listening") {
		t.Error("the web interface listens on a public address without a login")
	}
}

func TestATakenPortStopsThePagesNotTheBot(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	h := testkit.New(t)
	h.Env["WEB_ADDR"] = ln.Addr().String()
	h.Start()
	h.WaitLog(`the web interface is off: WEB_ADDR \S+ cannot be listened on`)
	if got := h.Say(jane, "still there?"); got == "" {
		t.Fatal("the bot does not answer")
	}
}

// signedIn starts the bot with WEB_URL set, so that pages need a session.
func signedIn(t *testing.T, settings ...string) *site {
	return setup(t, append([]string{"WEB_URL", "https://membot.example"}, settings...)...)
}

var linkToken = regexp.MustCompile(`https://membot\.example/signin\?token=([A-Za-z0-9_-]+)`)

// link has jane send /web and returns the token of the link she gets.
func (s *site) link() string {
	s.T.Helper()
	answer := s.Say(jane, "/web")
	m := linkToken.FindStringSubmatch(answer)
	if m == nil {
		s.T.Fatalf("/web answered %q", answer)
	}
	return m[1]
}

// signIn uses a link's token and returns the session cookie it gives.
func (s *site) signIn(token string) (string, page) {
	s.T.Helper()
	p := s.do("POST", "/signin", "", url.Values{"token": {token}})
	for _, c := range (&http.Response{Header: p.header}).Cookies() {
		if c.Name == "__Host-membot_session" {
			if !c.HttpOnly || !c.Secure || c.SameSite != http.SameSiteLaxMode {
				s.T.Errorf("the session cookie is not HttpOnly, Secure and SameSite: %+v", c)
			}
			return c.Value, p
		}
	}
	return "", p
}

func TestASignInLinkWorksOnceForItsAdmin(t *testing.T) {
	t.Parallel()
	s := signedIn(t)
	if p := s.do("GET", "/", "", nil); p.status != http.StatusUnauthorized || !strings.Contains(p.body, "/web") {
		t.Fatalf("a page without a session was answered %d:\n%s", p.status, p.body)
	}
	if got := s.Say(ivan, "/web"); linkToken.MatchString(got) {
		t.Fatalf("a user who is no admin got a sign-in link: %q", got)
	}
	token := s.link()
	// Fetching the link (as Telegram's link preview does) uses nothing.
	if p := s.do("GET", "/signin?token="+token, "", nil); p.status != http.StatusOK || !strings.Contains(p.body, token) {
		t.Fatalf("the link's page: %d\n%s", p.status, p.body)
	}
	cookie, p := s.signIn(token)
	if cookie == "" || p.status != http.StatusSeeOther {
		t.Fatalf("signing in: %d\n%s", p.status, p.body)
	}
	if again, p := s.signIn(token); again != "" || p.status != http.StatusForbidden {
		t.Fatalf("the link signed in twice: %d", p.status)
	}
	home := s.do("GET", "/", cookie, nil)
	if home.status != http.StatusOK {
		t.Fatalf("the overview with a session: %d\n%s", home.status, home.body)
	}
	if strings.Contains(home.body, testkit.Token) || strings.Contains(home.body, testkit.APIKey) {
		t.Error("a page shows a secret")
	}
	if n := s.Count(`SELECT count(*) FROM web_sessions WHERE telegram_user_id = $1`, jane.ID); n != 1 {
		t.Errorf("%d sessions stored for jane", n)
	}
	if n := s.Count(`SELECT count(*) FROM web_sessions WHERE token_hash = convert_to($1, 'UTF8')`, cookie); n != 0 {
		t.Error("the session's token is stored as it is, not as a hash")
	}

	// Ended from the page, the session opens nothing.
	sessions := s.do("GET", "/sessions", cookie, nil)
	var id int64
	if err := s.DB.QueryRow(context.Background(), `SELECT id FROM web_sessions WHERE telegram_user_id = $1`, jane.ID).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if p := s.do("POST", fmt.Sprintf("/sessions/%d/end", id), cookie, url.Values{"csrf": {"not-the-token"}}); p.status != http.StatusForbidden {
		t.Fatalf("ending a session without the CSRF token: %d", p.status)
	}
	if p := s.do("POST", fmt.Sprintf("/sessions/%d/end", id), cookie, url.Values{"csrf": {csrf(t, sessions)}}); p.status != http.StatusSeeOther {
		t.Fatalf("ending the session: %d\n%s", p.status, p.body)
	}
	if p := s.do("GET", "/", cookie, nil); p.status != http.StatusUnauthorized {
		t.Fatalf("an ended session still opens pages: %d", p.status)
	}
}

func TestWithWebURLOnlyItsHostIsAnswered(t *testing.T) {
	t.Parallel()
	s := signedIn(t)
	if p := s.do("GET", "/signin", "", nil, "Host", "evil.example"); p.status != http.StatusMisdirectedRequest {
		t.Errorf("a request for another host was answered %d", p.status)
	}
	p := s.do("GET", "/signin", "", nil, "Host", "membot.example")
	if p.status != http.StatusOK || !strings.Contains(p.header.Get("Strict-Transport-Security"), "max-age") {
		t.Errorf("WEB_URL's host: %d, HSTS %q", p.status, p.header.Get("Strict-Transport-Security"))
	}
}

func TestLinksAndSessionsExpire(t *testing.T) {
	t.Parallel()
	s := signedIn(t)
	expired := s.link()
	if _, err := s.DB.Exec(context.Background(), `UPDATE web_signin_links SET expires_at = now() - interval '1 second'`); err != nil {
		t.Fatal(err)
	}
	if cookie, p := s.signIn(expired); cookie != "" || p.status != http.StatusForbidden || !strings.Contains(p.body, "expired") {
		t.Fatalf("an expired link signed in: %d\n%s", p.status, p.body)
	}
	cookie, _ := s.signIn(s.link())
	if p := s.do("GET", "/", cookie, nil); p.status != http.StatusOK {
		t.Fatalf("a fresh session: %d", p.status)
	}
	if _, err := s.DB.Exec(context.Background(), `UPDATE web_sessions SET expires_at = now() - interval '1 second'`); err != nil {
		t.Fatal(err)
	}
	if p := s.do("GET", "/", cookie, nil); p.status != http.StatusUnauthorized {
		t.Fatalf("an expired session still opens pages: %d", p.status)
	}
}

// miniApp calls the Mini App's API with launch data signed as Telegram
// signs it (or with any other).
func (s *site) miniApp(method, path, initData string, form url.Values) page {
	return s.do(method, path, "", form, "Authorization", "tma "+initData, "Accept", "application/json")
}

func TestTheMiniAppShowsEachUserTheirOwnMemoryOnly(t *testing.T) {
	t.Parallel()
	s := signedIn(t)
	s.remember(jane, "Has a cat called Murka")
	s.remember(ivan, "Играет на виолончели")
	now := time.Now()
	asJane := web.SignInitData(web.TelegramUser{ID: jane.ID, FirstName: jane.FirstName}, testkit.Token, now)

	me := s.miniApp("GET", "/app/api/me", asJane, nil)
	if me.status != http.StatusOK || !strings.Contains(me.body, "Murka") || strings.Contains(me.body, "виолончели") {
		t.Fatalf("jane's Mini App: %d\n%s", me.status, me.body)
	}
	for name, initData := range map[string]string{
		"a wrong signature": web.SignInitData(web.TelegramUser{ID: jane.ID}, "654321:another-bot", now),
		"an old auth_date":  web.SignInitData(web.TelegramUser{ID: jane.ID}, testkit.Token, now.Add(-48*time.Hour)),
		"another user's id": strings.Replace(asJane, fmt.Sprintf("%%22id%%22%%3A%d", jane.ID), fmt.Sprintf("%%22id%%22%%3A%d", ivan.ID), 1),
		"nothing":           "",
	} {
		if p := s.miniApp("GET", "/app/api/me", initData, nil); p.status != http.StatusUnauthorized || strings.Contains(p.body, "Murka") || strings.Contains(p.body, "виолончели") {
			t.Errorf("launch data with %s was answered %d:\n%s", name, p.status, p.body)
		}
	}

	var mine struct {
		Facts []struct {
			ID int64 `json:"id"`
		} `json:"facts"`
	}
	if err := json.Unmarshal([]byte(me.body), &mine); err != nil || len(mine.Facts) != 1 {
		t.Fatalf("%v: %s", err, me.body)
	}
	var ivansFact int64
	if err := s.DB.QueryRow(context.Background(), `SELECT id FROM memories WHERE telegram_user_id = $1`, ivan.ID).Scan(&ivansFact); err != nil {
		t.Fatal(err)
	}
	if p := s.miniApp("POST", fmt.Sprintf("/app/api/facts/%d/forget", ivansFact), asJane, url.Values{}); p.status != http.StatusNotFound {
		t.Errorf("jane forgetting ivan's fact was answered %d", p.status)
	}
	if p := s.miniApp("POST", fmt.Sprintf("/app/api/facts/%d", mine.Facts[0].ID), asJane, url.Values{"content": {"Has two cats, Murka and Barsik"}}); p.status != http.StatusOK {
		t.Fatalf("correcting a fact: %d\n%s", p.status, p.body)
	}
	if p := s.miniApp("GET", "/app/api/search?q=Murka", asJane, nil); p.status != http.StatusOK || !strings.Contains(p.body, "Murka") {
		t.Errorf("searching her history: %d\n%s", p.status, p.body)
	}
	// Bytes that are no UTF-8, and a long query cut inside a character,
	// are searched for what is left, not refused by the database.
	for _, q := range []string{"Murka%ff%fe", "a" + strings.Repeat("ж", 300) + "%20Murka"} {
		if p := s.miniApp("GET", "/app/api/search?q="+q, asJane, nil); p.status != http.StatusOK {
			t.Errorf("searching %.20q…: %d\n%s", q, p.status, p.body)
		}
	}
	if p := s.miniApp("POST", "/app/api/forget", asJane, url.Values{}); p.status != http.StatusOK {
		t.Fatalf("forget everything: %d", p.status)
	}
	if n := s.Count(`SELECT count(*) FROM memories WHERE telegram_user_id = $1`, ivan.ID); n != 1 {
		t.Errorf("ivan has %d facts after jane forgot hers", n)
	}
	if n := s.Count(`SELECT count(*) FROM memories WHERE telegram_user_id = $1`, jane.ID); n != 0 {
		t.Errorf("jane still has %d facts", n)
	}
}

// Telegram ids pass 2^31: a user's own reminder is cancelled from the Mini
// App whatever their id, and another's is not found; exports keep to
// EXPORTS_PER_HOUR, counted with /export.
func TestTheMiniAppCancelsAReminderAndBoundsExports(t *testing.T) {
	t.Parallel()
	s := signedIn(t, "EXPORTS_PER_HOUR", "1")
	big := telegramfake.User{ID: 5_000_000_001, FirstName: "Big", LanguageCode: "en"}
	for _, u := range []telegramfake.User{big, jane} {
		s.LLM.Script(
			openaifake.Reply{ToolCalls: []openai.ToolCall{openaifake.ToolCall("c1", "set_reminder", `{"text":"water the plants","in":"3h"}`)}},
			openaifake.Reply{Content: "Set."},
		)
		s.Say(u, "remind me to water the plants in 3 hours")
	}
	var mine, janes int64
	if err := s.DB.QueryRow(context.Background(), `SELECT (SELECT id FROM reminders WHERE telegram_user_id = $1), (SELECT id FROM reminders WHERE telegram_user_id = $2)`,
		big.ID, jane.ID).Scan(&mine, &janes); err != nil {
		t.Fatal(err)
	}
	asBig := web.SignInitData(web.TelegramUser{ID: big.ID, FirstName: big.FirstName}, testkit.Token, time.Now())
	if p := s.miniApp("POST", fmt.Sprintf("/app/api/reminders/%d/cancel", janes), asBig, url.Values{}); p.status != http.StatusNotFound {
		t.Errorf("cancelling another user's reminder was answered %d: %s", p.status, p.body)
	}
	if p := s.miniApp("POST", fmt.Sprintf("/app/api/reminders/%d/cancel", mine), asBig, url.Values{}); p.status != http.StatusOK {
		t.Fatalf("cancelling one's own reminder: %d %s", p.status, p.body)
	}
	if n := s.Count(`SELECT count(*) FROM reminders WHERE status = 'cancelled'`); n != 1 {
		t.Errorf("%d reminders cancelled", n)
	}
	if p := s.miniApp("GET", "/app/api/export", asBig, nil); p.status != http.StatusOK || !strings.Contains(p.body, "water the plants") {
		t.Fatalf("the export: %d", p.status)
	}
	if p := s.miniApp("GET", "/app/api/export", asBig, nil); p.status != http.StatusTooManyRequests {
		t.Errorf("a second export within the hour was answered %d", p.status)
	}
	old := web.SignInitData(web.TelegramUser{ID: big.ID}, testkit.Token, time.Now().Add(-2*time.Hour))
	if p := s.miniApp("GET", "/app/api/me", old, nil); p.status != http.StatusOK {
		t.Errorf("two-hour-old launch data could not read: %d", p.status)
	}
	if p := s.miniApp("POST", "/app/api/forget", old, url.Values{}); p.status != http.StatusUnauthorized {
		t.Errorf("two-hour-old launch data could change: %d", p.status)
	}
}

func TestMemoryOffersTheMiniAppWithAnHTTPSAddress(t *testing.T) {
	t.Parallel()
	s := signedIn(t)
	s.WaitUntil("the menu button is not set to the Mini App", func() bool {
		calls := s.TG.Calls("setChatMenuButton")
		return len(calls) == 1 && strings.Contains(calls[0].Params["menu_button"], `"url":"https://membot.example/app"`)
	})
	s.remember(jane, "Likes tea")
	s.Say(jane, "/memory")
	s.WaitUntil("no Mini App button after /memory", func() bool {
		for _, m := range s.TG.Messages(jane.ID) {
			if strings.Contains(m.ReplyMarkup, `"web_app":{"url":"https://membot.example/app"}`) {
				return true
			}
		}
		return false
	})
}

func TestHostileTextsRenderAsText(t *testing.T) {
	t.Parallel()
	s := setup(t, "CONTEXT_TOKENS", "1000000", "MAX_ANSWER_TOKENS", "300000", "STREAMING", "false")
	script := `<script>alert("x")</script><img src=x onerror=alert(1)>` + "\u202egnp.exe\u200b"
	huge := strings.Repeat("lorem ipsum ", 90_000) // over a megabyte
	s.LLM.Script(openaifake.Reply{Content: script + huge})
	s.Say(jane, script)

	chats := s.do("GET", "/chats", "", nil, "Accept", "application/json")
	var list struct {
		Chats []struct {
			ConversationID string `json:"conversation_id"`
		} `json:"chats"`
	}
	if err := json.Unmarshal([]byte(chats.body), &list); err != nil || len(list.Chats) == 0 {
		t.Fatalf("%v: %s", err, chats.body)
	}
	p := s.do("GET", "/chats/"+list.Chats[0].ConversationID, "", nil)
	if p.status != http.StatusOK {
		t.Fatalf("the conversation's page: %d", p.status)
	}
	if strings.Contains(p.body, "<script>alert") || strings.Contains(p.body, "<img src=x") {
		t.Error("a stored text is rendered as HTML")
	}
	if strings.Contains(p.body, "\u202e") || !strings.Contains(p.body, `\u202e`) {
		t.Error("the right-to-left override is not shown escaped")
	}
	if len(p.body) > 200_000 {
		t.Errorf("the page is %d bytes: a megabyte message is not cut", len(p.body))
	}
	if !regexp.MustCompile(`\(\d[\d,]* more characters\)`).MatchString(p.body) {
		t.Error("the cut message does not say how much is left out")
	}
}

func TestWhatTheBotWaitsOnCanBeCancelled(t *testing.T) {
	t.Parallel()
	s := setup(t)
	s.LLM.Script(
		openaifake.Reply{ToolCalls: []openai.ToolCall{
			openaifake.ToolCall("c1", "set_reminder", `{"text":"call mom","in":"2h"}`),
			openaifake.ToolCall("c2", "fetch_url", `{"url":"https://example.com/"}`),
		}},
		openaifake.Reply{Content: "Set, and I asked about the page."},
	)
	s.Say(jane, "remind me to call mom in 2 hours and read example.com")
	s.WaitCount(`SELECT count(*) FROM pending_approvals WHERE status = 'pending'`, 1)

	waits := s.do("GET", "/waits", "", nil)
	if !strings.Contains(waits.body, "call mom") || !strings.Contains(waits.body, "fetch_url") {
		t.Fatalf("the waiting page:\n%s", waits.body)
	}
	token := csrf(t, waits)
	var reminder, approval int64
	if err := s.DB.QueryRow(context.Background(), `SELECT (SELECT id FROM reminders), (SELECT id FROM pending_approvals)`).Scan(&reminder, &approval); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fmt.Sprintf("/waits/%d/cancel", reminder), fmt.Sprintf("/approvals/%d/cancel", approval)} {
		if p := s.do("POST", path, "", url.Values{"csrf": {token}}); p.status != http.StatusSeeOther {
			t.Fatalf("POST %s: %d\n%s", path, p.status, p.body)
		}
	}
	if n := s.Count(`SELECT count(*) FROM reminders WHERE status = 'cancelled'`); n != 1 {
		t.Error("the reminder was not cancelled")
	}
	if n := s.Count(`SELECT count(*) FROM pending_approvals WHERE status = 'cancelled'`); n != 1 {
		t.Error("the approval was not cancelled")
	}
	if n := s.Count(`SELECT count(*) FROM events WHERE type = 'web_change' AND payload->>'action' LIKE 'cancel_%'`); n != 2 {
		t.Errorf("%d cancellations written to the events table", n)
	}
	if p := s.do("POST", fmt.Sprintf("/waits/%d/cancel", reminder), "", url.Values{"csrf": {token}}); p.status != http.StatusNotFound {
		t.Errorf("cancelling twice was answered %d", p.status)
	}
}

func TestTheToolsPageShowsEachMCPServerAndWhy(t *testing.T) {
	t.Parallel()
	h := testkit.New(t)
	h.Env["WEB_ADDR"] = "127.0.0.1:0"
	servers := `{"mcpServers": {"broken": {"command": "/nonexistent/mcp-server-<b>x</b>"}}}`
	path := t.TempDir() + "/servers.json"
	if err := os.WriteFile(path, []byte(servers), 0o600); err != nil {
		t.Fatal(err)
	}
	h.Env["MCP_SERVERS"] = path
	h.Start()
	s := &site{Harness: h, base: "http://" + h.WaitLog(`web server listening" addr=(\S+)`)[1]}
	s.WaitUntil("the server is not down", func() bool {
		return strings.Contains(s.do("GET", "/tools", "", nil).body, "down")
	})
	p := s.do("GET", "/tools", "", nil)
	if !strings.Contains(p.body, "broken") || !strings.Contains(p.body, "outside text") || strings.Contains(p.body, "<b>x</b>") {
		t.Fatalf("the tools page:\n%s", p.body)
	}
	var asJSON struct {
		Servers []web.ToolServer `json:"servers"`
	}
	if err := json.Unmarshal([]byte(s.do("GET", "/tools", "", nil, "Accept", "application/json").body), &asJSON); err != nil ||
		len(asJSON.Servers) != 1 || asJSON.Servers[0].Why == "" {
		t.Fatalf("the tools page's JSON: %v %+v", err, asJSON)
	}
}

// The conversation's page shows each approval beside its tool call (its
// status, who decided, when) and each user row's origin in words.
func TestTheConversationShowsApprovalsBesideTheirCallsAndOrigins(t *testing.T) {
	t.Parallel()
	s := setup(t)
	s.LLM.Script(openaifake.Reply{Content: "A forward, noted."})
	fwd := telegramfake.TextMessage(jane.ID, "private", jane, "Someone else's words")
	fwd["forward_origin"] = map[string]any{"type": "hidden_user", "sender_user_name": "Someone", "date": 1700000000}
	s.Expect(jane.ID, func() int64 { return s.TG.AddUpdate("message", fwd) })

	s.LLM.Script(openaifake.Reply{ToolCalls: []openai.ToolCall{openaifake.ToolCall("call_fetch", "fetch_url", `{"url":"https://example.com/"}`)}})
	s.Say(jane, "read example.com")
	prompt := s.Last(jane.ID)
	buttons := prompt.Buttons()
	if len(buttons) < 2 {
		t.Fatalf("the approval's prompt %q has buttons %+v", prompt.Text, buttons)
	}
	s.LLM.Script(openaifake.Reply{Content: "I will not read it, then."})
	s.PressForReply(jane, prompt, buttons[1].Data) // reject
	s.WaitCount(`SELECT count(*) FROM pending_approvals WHERE status = 'rejected' AND decided_by = $1`, 1, jane.ID)

	var conversation string
	if err := s.DB.QueryRow(context.Background(), `SELECT id::text FROM conversations WHERE chat_id = $1`, jane.ID).Scan(&conversation); err != nil {
		t.Fatal(err)
	}
	p := s.do("GET", "/chats/"+conversation, "", nil)
	call := regexp.MustCompile(`(?s)<li class="call"><code>fetch_url</code>.*?</li>`).FindString(p.body)
	if !strings.Contains(call, "<strong>rejected</strong> by <bdi>Jane</bdi>") || !strings.Contains(call, fmt.Sprintf("(id %d) at ", jane.ID)) {
		t.Errorf("the call does not show its approval beside it: %q\n%s", call, p.body)
	}
	if strings.Contains(p.body, "Approvals of calls not shown above") {
		t.Error("the approval is also listed apart")
	}
	for _, origin := range []string{"a message the user forwarded", "the user&#39;s own message"} {
		if !strings.Contains(p.body, `<span class="origin">`+origin) {
			t.Errorf("no user row's origin reads %q", origin)
		}
	}
	if !strings.Contains(p.body, "<summary>metadata (JSON)</summary>") {
		t.Error("the raw metadata is gone")
	}
}

// In owner mode (the default) the Mini App serves whom the owner allowed,
// known to the database only, and the owner after a restart; a user the
// bot does not serve gets nothing.
func TestTheMiniAppServesWhomTheOwnerAllowed(t *testing.T) {
	t.Parallel()
	h := testkit.New(t)
	delete(h.Env, "ACCESS")
	h.Env["WEB_ADDR"], h.Env["WEB_URL"] = "127.0.0.1:0", "https://membot.example"
	h.Start()
	code := h.WaitLog(`code=(\w+)`)[1]
	h.Say(jane, "/start "+code)
	h.Say(ivan, "привет")
	var request telegramfake.Message
	for _, m := range h.TG.Messages(jane.ID) {
		if strings.Contains(m.Text, "@ivan") {
			request = m
		}
	}
	h.Press(jane, request, "pair:allow:1")
	h.WaitCount(`SELECT count(*) FROM access_requests WHERE status = 'allowed'`, 1)
	h.Stop()
	h.Logs = &testkit.SyncBuffer{}
	h.Start() // nobody is known to this process but from the database
	s := &site{Harness: h, base: "http://" + h.WaitLog(`web server listening" addr=(\S+)`)[1]}
	now := time.Now()
	for _, c := range []struct {
		user telegramfake.User
		want int
	}{{ivan, http.StatusOK}, {jane, http.StatusOK}, {telegramfake.User{ID: 999, FirstName: "Eve"}, http.StatusForbidden}} {
		initData := web.SignInitData(web.TelegramUser{ID: c.user.ID, FirstName: c.user.FirstName}, testkit.Token, now)
		if p := s.miniApp("GET", "/app/api/me", initData, nil); p.status != c.want {
			t.Errorf("%s's Mini App: %d, want %d: %s", c.user.FirstName, p.status, c.want, p.body)
		}
	}
	// Editing a fact that is gone is a 404, not a server error.
	if p := s.miniApp("POST", "/app/api/facts/12345", web.SignInitData(web.TelegramUser{ID: jane.ID}, testkit.Token, now),
		url.Values{"content": {"x"}}); p.status != http.StatusNotFound {
		t.Errorf("editing a missing fact: %d %s", p.status, p.body)
	}
}
