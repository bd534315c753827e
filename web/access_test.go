package web_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/telegramfake"
	"github.com/membot/membot/internal/testing/testkit"
)

// accessJSON is the access page as scripts read it.
type accessJSON struct {
	Rules struct {
		Mode         string  `json:"mode"`
		Admins       []int64 `json:"admins"`
		AllowedUsers []int64 `json:"allowed_users"`
	} `json:"rules"`
	Grants []struct {
		TelegramID int64  `json:"telegram_id"`
		Status     string `json:"status"`
	} `json:"grants"`
	Requests []struct {
		ID         int64 `json:"id"`
		TelegramID int64 `json:"telegram_id"`
	} `json:"requests"`
}

func (s *site) access(cookie string) accessJSON {
	s.T.Helper()
	var a accessJSON
	p := s.do("GET", "/access", cookie, nil, "Accept", "application/json")
	if err := json.Unmarshal([]byte(p.body), &a); err != nil {
		s.T.Fatalf("the access page's JSON: %v\n%s", err, p.body)
	}
	return a
}

// askAccess has ivan, a stranger in owner mode, write to the bot: his
// request waits for jane, the admin, who gets it with its buttons.
func (s *site) askAccess() {
	s.T.Helper()
	s.Say(ivan, "привет")
	s.WaitUntil("jane is not asked about ivan", func() bool {
		for _, m := range s.TG.Messages(jane.ID) {
			if strings.Contains(m.ReplyMarkup, "pair:allow:") {
				return true
			}
		}
		return false
	})
}

// Allow on the page is the owner's Allow button: the same decision, the
// asker told the same way, and then served; Block and Revoke are
// /users block and /users revoke. Each change is in the events table with
// who made it.
func TestTheAccessPageDecidesAsTheOwnersButtons(t *testing.T) {
	t.Parallel()
	s := signedIn(t, "ACCESS", "owner")
	s.askAccess()
	cookie, _ := s.signIn(s.link())

	page := s.do("GET", "/access", cookie, nil)
	if page.status != http.StatusOK || !strings.Contains(page.body, "Owner mode") || !strings.Contains(page.body, "Иван") ||
		!strings.Contains(page.body, fmt.Sprintf("admin (<code>ADMIN_USER_IDS</code>): id %d", jane.ID)) {
		t.Fatalf("the access page: %d\n%s", page.status, page.body)
	}
	a := s.access(cookie)
	if a.Rules.Mode != "owner" || len(a.Requests) != 1 || a.Requests[0].TelegramID != ivan.ID {
		t.Fatalf("the access page's JSON: %+v", a)
	}
	allow := fmt.Sprintf("/access/requests/%d/allow", a.Requests[0].ID)
	if p := s.do("POST", allow, cookie, url.Values{}); p.status != http.StatusForbidden {
		t.Fatalf("Allow without the CSRF token was answered %d", p.status)
	}
	token := csrf(t, page)
	if p := s.do("POST", allow, cookie, url.Values{"csrf": {token}}); p.status != http.StatusSeeOther {
		t.Fatalf("Allow: %d\n%s", p.status, p.body)
	}
	s.WaitUntil("ivan is not told he is allowed", func() bool {
		for _, m := range s.TG.Messages(ivan.ID) {
			if strings.Contains(m.Text, "Владелец разрешил") {
				return true
			}
		}
		return false
	})
	if n := s.Count(`SELECT count(*) FROM events WHERE type = 'web_change' AND payload->>'action' = 'decide_access_request'
		AND payload->>'status' = 'allowed' AND (payload->>'by')::bigint = $1 AND payload ? 'session_id'`, jane.ID); n != 1 {
		t.Errorf("%d decisions written to the events table with who made them", n)
	}
	if p := s.do("POST", allow, cookie, url.Values{"csrf": {token}}); p.status != http.StatusConflict {
		t.Errorf("deciding a decided request again was answered %d", p.status)
	}
	s.LLM.Script(openaifake.Reply{Content: "Здравствуйте!"})
	if got := s.Say(ivan, "теперь можно?"); got != "Здравствуйте!" {
		t.Fatalf("ivan, allowed on the page, is answered %q", got)
	}

	for _, step := range []struct{ verb, want string }{{"block", "blocked"}, {"allow", "allowed"}, {"revoke", ""}} {
		p := s.do("POST", "/access/grants", cookie, url.Values{"csrf": {token}, "verb": {step.verb}, "id": {fmt.Sprint(ivan.ID)}})
		if p.status != http.StatusSeeOther {
			t.Fatalf("%s: %d\n%s", step.verb, p.status, p.body)
		}
		var got string
		for _, g := range s.access(cookie).Grants {
			if g.TelegramID == ivan.ID {
				got = g.Status
			}
		}
		if got != step.want {
			t.Fatalf("after %s ivan is %q", step.verb, got)
		}
	}
	if n := s.Count(`SELECT count(*) FROM events WHERE type = 'web_change' AND payload->>'action' IN ('block_access', 'allow_access', 'revoke_access')
		AND (payload->>'by')::bigint = $1`, jane.ID); n != 3 {
		t.Errorf("%d grant changes written to the events table", n)
	}
	if p := s.do("POST", "/access/grants", cookie, url.Values{"csrf": {token}, "verb": {"revoke"}, "id": {fmt.Sprint(ivan.ID)}}); p.status != http.StatusConflict {
		t.Errorf("revoking nothing was answered %d", p.status)
	}
	if p := s.do("POST", "/access/grants", cookie, url.Values{"csrf": {token}, "verb": {"drop"}, "id": {"1"}}); p.status != http.StatusBadRequest {
		t.Errorf("an unknown verb was answered %d", p.status)
	}
	// Blocked on the page, a stranger is refused without a word, as
	// after /users block.
	stranger := telegramfake.User{ID: 777, FirstName: "Mallory", LanguageCode: "en"}
	if p := s.do("POST", "/access/grants", cookie, url.Values{"csrf": {token}, "verb": {"block"}, "id": {"777"}}); p.status != http.StatusSeeOther {
		t.Fatalf("block by id: %d", p.status)
	}
	s.WaitDone(s.TG.SendText(stranger, "hello?"))
	if got := s.TG.Messages(stranger.ID); len(got) != 0 {
		t.Errorf("a stranger blocked on the page was answered %q", got[0].Text)
	}
}

// With an allowlist the page says the settings decide, and lists them.
func TestTheAccessPageShowsTheSettingsLists(t *testing.T) {
	t.Parallel()
	s := setup(t, "ALLOWED_USER_IDS", fmt.Sprintf("%d,123456789", ivan.ID))
	p := s.do("GET", "/access", "", nil)
	if !strings.Contains(p.body, "the settings decide") || !strings.Contains(p.body, "user id 123456789 (<code>ALLOWED_USER_IDS</code>)") {
		t.Fatalf("the access page with an allowlist:\n%s", p.body)
	}
	if a := s.access(""); a.Rules.Mode != "allowlist" || len(a.Rules.AllowedUsers) != 2 || len(a.Rules.Admins) != 1 {
		t.Errorf("the access page's JSON: %+v", a)
	}
	open := setup(t)
	if p := open.do("GET", "/access", "", nil); !strings.Contains(p.body, "the bot serves everyone") {
		t.Errorf("the access page with ACCESS=open:\n%s", p.body)
	}
}

// The settings page shows every setting the bot runs with and no secret.
func TestTheSettingsPageShowsNoSecret(t *testing.T) {
	t.Parallel()
	const brave, searxPassword = "brave-key-0123456789abcdef", "searx-pass-9876543210"
	s := signedIn(t, "BRAVE_API_KEY", brave, "SEARXNG_URL", "http://admin:"+searxPassword+"@127.0.0.1:9/?apikey=zz-query-secret-42",
		"HISTORY_LIMIT", "37")
	cookie, _ := s.signIn(s.link())
	for _, accept := range []string{"text/html", "application/json"} {
		p := s.do("GET", "/settings", cookie, nil, "Accept", accept)
		if p.status != http.StatusOK {
			t.Fatalf("the settings page (%s): %d", accept, p.status)
		}
		for _, secret := range []string{testkit.Token, testkit.APIKey, brave, searxPassword, "zz-query-secret-42"} {
			if strings.Contains(p.body, secret) {
				t.Errorf("the settings page (%s) shows the secret %q", accept, secret)
			}
		}
		for _, want := range []string{"TELEGRAM_BOT_TOKEN", "OPENAI_API_KEY", "test-model", "37", "WEB_SESSION_TTL", "12h0m0s", "127.0.0.1:9"} {
			if !strings.Contains(p.body, want) {
				t.Errorf("the settings page (%s) does not show %q", accept, want)
			}
		}
	}
	var asJSON struct {
		Settings *[]struct {
			Name   string `json:"name"`
			Value  string `json:"value"`
			Hidden bool   `json:"hidden"`
		} `json:"settings"`
	}
	if err := json.Unmarshal([]byte(s.do("GET", "/settings", cookie, nil, "Accept", "application/json").body), &asJSON); err != nil || asJSON.Settings == nil {
		t.Fatalf("the settings' JSON: %v", err)
	}
	hidden, values := map[string]bool{}, map[string]string{}
	for _, st := range *asJSON.Settings {
		hidden[st.Name], values[st.Name] = st.Hidden, st.Value
	}
	// Set or default, each as the bot runs with it.
	for name, want := range map[string]string{"HISTORY_LIMIT": "37", "WEB_SESSION_TTL": "12h0m0s", "OPENAI_MODEL": "test-model",
		"CONTEXT_TOKENS": "16000", "STREAMING": "true"} {
		if values[name] != want {
			t.Errorf("%s is shown as %q, want %q", name, values[name], want)
		}
	}
	if !strings.Contains(values["APPROVAL_REQUIRED_TOOLS"], "fetch_url") {
		t.Errorf("APPROVAL_REQUIRED_TOOLS's default is shown as %q", values["APPROVAL_REQUIRED_TOOLS"])
	}
	for _, name := range []string{"TELEGRAM_BOT_TOKEN", "OPENAI_API_KEY", "BRAVE_API_KEY", "TRANSCRIPTION_API_KEY"} {
		if !hidden[name] {
			t.Errorf("%s is not marked hidden", name)
		}
	}
	if hidden["OPENAI_MODEL"] || len(hidden) < 80 {
		t.Errorf("%d settings shown; OPENAI_MODEL hidden: %v", len(hidden), hidden["OPENAI_MODEL"])
	}
}

// A stranger's name is shown as text: markup stays inert, and no bidi
// control reaches the page.
func TestTheAccessPageShowsHostileNamesAsText(t *testing.T) {
	t.Parallel()
	s := setup(t, "ACCESS", "owner")
	mallory := telegramfake.User{ID: 666, FirstName: "<img src=x onerror=alert(1)>\u202eyrollam", Username: "mallory", LanguageCode: "en"}
	s.Say(mallory, "let me in")
	s.WaitCount(`SELECT count(*) FROM access_requests WHERE telegram_id = $1`, 1, mallory.ID)
	p := s.do("GET", "/access", "", nil)
	if strings.Contains(p.body, "<img src=x") || strings.Contains(p.body, "\u202e") || !strings.Contains(p.body, `&lt;img src=x onerror=alert(1)&gt;`) {
		t.Fatalf("a hostile name on the access page:\n%s", p.body)
	}
}
