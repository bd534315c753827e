package bot_test

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/telegramfake"
	"github.com/membot/membot/internal/testing/testkit"
)

// First-run help: /start tells the sender their Telegram id, and in a group
// the group's chat id too — the ids ALLOWED_USER_IDS, ADMIN_USER_IDS and
// ALLOWED_CHAT_IDS want.
func TestStartTellsTheIDsTheSettingsWant(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Start()
	if got := h.Say(jane, "/start"); !strings.Contains(got, "Your Telegram id: 502") || strings.Contains(got, "group") {
		t.Errorf("/start in private = %q", got)
	}
	if got := h.Say(ivan, "/start"); !strings.Contains(got, "Ваш Telegram id: 501") {
		t.Errorf("/start in Russian = %q", got)
	}
	const group = -1001234567890
	got := h.SayIn(group, "supergroup", jane, "/start")
	if !strings.Contains(got, "This group's chat id: -1001234567890") || !strings.Contains(got, "ALLOWED_CHAT_IDS") ||
		!strings.Contains(got, "Your Telegram id: 502") {
		t.Errorf("/start in a group = %q", got)
	}
}

// Each turn of the model leaves one info line: chat, update, outcome, time
// and tokens, and never the text.
func TestEachTurnLogsOneLineWithoutItsText(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["ALLOWED_USER_IDS"] = "502,501"
	h.Env["ADMIN_USER_IDS"] = "502"
	h.Start()
	h.WaitLog(`msg="membot starting" .*access=allowlist allowed_users=501,502 allowed_chats="" admins=502 daily_token_limit=0`)
	h.Say(jane, "my secret is 4711")
	h.WaitIdle()
	var lines []string
	for _, l := range strings.Split(h.Logs.String(), "\n") {
		if strings.Contains(l, "msg=turn ") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 {
		t.Fatalf("%d turn lines, want 1:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	m := regexp.MustCompile(`level=INFO msg=turn chat_id=502 update_id=\d+ outcome=answered took_ms=\d+ tokens=(\d+)$`).FindStringSubmatch(lines[0])
	if m == nil {
		t.Fatalf("turn line = %q", lines[0])
	}
	if n, _ := strconv.Atoi(m[1]); n == 0 {
		t.Errorf("the turn line counts no tokens: %q", lines[0])
	}
	if strings.Contains(lines[0], "4711") {
		t.Errorf("the turn line shows the text: %q", lines[0])
	}
}

// A model server that refuses the bot's settings (a wrong key, an unknown
// model) is not helped by trying again: the user is asked to tell the
// admin, and the log says which settings to check. A passing failure asks
// the user to try again.
func TestTheApologySaysWhetherToTryAgainOrTellTheAdmin(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.LLM.Script(openaifake.Reply{Status: 401}, openaifake.Reply{Status: 404},
		openaifake.Reply{Status: 503}, openaifake.Reply{Status: 503}, openaifake.Reply{Status: 503}, openaifake.Reply{Status: 503})
	h.Start()
	for _, text := range []string{"wrong key", "wrong model"} {
		if got := h.Say(jane, text); !strings.Contains(got, "please tell the bot's admin") {
			t.Errorf("%s: reply = %q, want to tell the admin", text, got)
		}
	}
	if got := h.Say(jane, "server down"); !strings.Contains(got, "try again") || strings.Contains(got, "admin") {
		t.Errorf("a passing failure: reply = %q, want to try again", got)
	}
	h.WaitLog(`the model server refuses the bot's settings \(401\): check OPENAI_API_KEY`)
	if got := h.Say(ivan, "привет"); got != "echo: привет" {
		t.Errorf("after the failures: %q", got)
	}
	if got := len(h.LLM.Requests()); got != 7 {
		t.Errorf("%d model calls, want 7: a 401 and a 404 are not repeated, a 503 is", got)
	}
}

// A turn a run left unfinished (here: abandoned at the shutdown deadline)
// is taken over by the next run, which says so in the log.
func TestATakenOverTurnIsLogged(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["SHUTDOWN_TIMEOUT"] = "100ms"
	h.LLM.Script(openaifake.Reply{Content: "never sent", Delay: time.Hour})
	h.Start()
	id := h.TG.SendText(jane, "slow question")
	h.WaitUntil("the model is asked", func() bool { return len(h.LLM.Requests()) == 1 })
	h.Stop()
	h.Start()
	h.WaitDone(id)
	h.WaitLog(`msg="taking over an update a stopped or crashed run left unfinished" update_id=` + strconv.FormatInt(id, 10) + ` chat_id=502 attempt=2`)
}

// What every turn costs before the conversation: the system prompt and the
// tools' schemas, as the model server receives them (a private chat, the
// default mode and prompt, no facts). The numbers are for the operator's
// docs (docs/OPERATIONS.md: What a turn costs): go test -run TestTheFixedOverheadOfATurn -v ./bot/
func TestTheFixedOverheadOfATurn(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Start()
	h.Say(jane, "hi")
	req := h.LLM.Requests()[0]
	if req.Messages[0].Role != "system" {
		t.Fatalf("the first message is %q, not the system prompt", req.Messages[0].Role)
	}
	system := req.Messages[0].Content
	tools, err := json.Marshal(req.Tools)
	if err != nil {
		t.Fatal(err)
	}
	fixed := len(system) + len(tools)
	t.Logf("system prompt: %d characters (%d bytes); %d tools: %d bytes of JSON schema; fixed overhead %d bytes "+
		"= about %d tokens at 4 bytes a token (OpenAI's tokenizers on English and JSON), %d by membot's own budget estimate (3 bytes a token)",
		utf8.RuneCountInString(system), len(system), len(req.Tools), len(tools), fixed, fixed/4, (fixed+2)/3)
	// The operator's docs give these numbers.
	doc, err := os.ReadFile("../docs/OPERATIONS.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range []string{
		fmt.Sprintf("| system prompt | %s characters (%s bytes) |", thousands(utf8.RuneCountInString(system)), thousands(len(system))),
		fmt.Sprintf("| %d tool schemas | %s bytes of JSON |", len(req.Tools), thousands(len(tools))),
		fmt.Sprintf("| together | %s bytes ≈ %s tokens (", thousands(fixed), thousands(fixed/4)),
		fmt.Sprintf("membot's own budget counts %s, at 3 bytes a token) |", thousands((fixed+2)/3)),
	} {
		if !strings.Contains(string(doc), row) {
			t.Errorf("docs/OPERATIONS.md (What a turn costs) lacks %q: put the numbers above in its table", row)
		}
	}
	// A guard, not a result: the fixed part must leave most of the default
	// CONTEXT_TOKENS (16,000) to the conversation.
	if fixed/3 > 16000/4 {
		t.Errorf("the fixed overhead (%d bytes) takes more than a quarter of the default context", fixed)
	}
}

// Added to a group, the bot greets it with the group's chat id — or, when
// the group is not allowed yet, refuses naming it — so that whoever added
// it learns what to put in ALLOWED_CHAT_IDS.
func TestAddedToAGroupTheBotSaysTheGroupsID(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["ALLOWED_USER_IDS"] = "502"
	h.Start()
	added := func(group int64) string {
		return h.Expect(group, func() int64 {
			msg := telegramfake.TextMessage(group, "supergroup", jane, "")
			delete(msg, "text")
			msg["new_chat_members"] = []telegramfake.User{h.TG.Bot()}
			return h.TG.AddUpdate("message", msg)
		}).Text
	}
	if got := added(-1001111111111); !strings.Contains(got, "This group's chat id: -1001111111111") || !strings.Contains(got, "Hello, Jane") {
		t.Errorf("added by an allowed user: %q", got)
	}
	h.Env["ALLOWED_USER_IDS"] = "999"
	h.Stop()
	h.Start()
	if got := added(-1002222222222); !strings.Contains(got, "private bot") || !strings.Contains(got, "This group's chat id: -1002222222222") {
		t.Errorf("added by someone not allowed: %q", got)
	}
}

// /readyz reports a model whose calls all fail (a key the server rejects),
// and is ready again once a call succeeds.
func TestReadyzReportsAModelThatFailsEveryCall(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["METRICS_ADDR"] = "127.0.0.1:0"
	h.LLM.Script(openaifake.Reply{Status: 401}, openaifake.Reply{Status: 401}, openaifake.Reply{Status: 401},
		openaifake.Reply{Status: 401}, openaifake.Reply{Status: 401})
	h.Start()
	base := "http://" + h.WaitLog(`msg="metrics server listening" addr=(\S+)`)[1]
	for i := range 5 {
		h.Say(jane, "question "+strconv.Itoa(i))
	}
	code, body := testkit.Get(t, base+"/readyz")
	if code != 503 || !strings.Contains(body, "model: test-model: the last 5 calls failed (the newest: 401)") {
		t.Fatalf("after 5 refused calls /readyz = %d %q", code, body)
	}
	if got := h.Say(jane, "and now?"); got != "echo: and now?" {
		t.Fatalf("reply = %q", got)
	}
	if code, body := testkit.Get(t, base+"/readyz"); code != 200 || !strings.Contains(body, "model: ok") {
		t.Fatalf("after a success /readyz = %d %q", code, body)
	}
}

// A start held up by a Telegram that does not answer says so, where it
// looks for it and why it gets no answer, instead of falling silent after
// the migrations.
func TestAStartWaitingForTelegramSaysSo(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["TELEGRAM_API_URL"] = "http://127.0.0.1:1"
	h.Start()
	h.WaitLog(`level=WARN msg="still waiting for Telegram to answer getMe: nothing listens at 127.0.0.1:1 \(connection refused\): check TELEGRAM_API_URL and that the Bot API server runs" api=http://127.0.0.1:1`)
}

// thousands writes n with commas between the thousands, as the docs do.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
