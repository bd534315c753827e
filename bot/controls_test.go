package bot_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/telegramfake"
	"github.com/membot/membot/internal/testing/wait"
)

// rows lists the chat's message rows as role:content, oldest first.
func rows(h *harness, chatID int64) []string {
	h.T.Helper()
	res, err := h.DB.Query(context.Background(), `SELECT m.role, m.content FROM messages m
		JOIN conversations c ON c.id = m.conversation_id WHERE c.chat_id = $1 ORDER BY m.id`, chatID)
	if err != nil {
		h.T.Fatal(err)
	}
	defer res.Close()
	var out []string
	for res.Next() {
		var role, content string
		res.Scan(&role, &content)
		if role == "user" {
			content = content[strings.Index(content, "] ")+2:]
		}
		out = append(out, role+":"+content)
	}
	return out
}

// scriptCalculatorTurn makes the model's next turn call the calculator
// with args, then answer.
func scriptCalculatorTurn(h *harness, callID, args, answer string) {
	h.LLM.Script(openaifake.Reply{ToolCalls: []openai.ToolCall{openaifake.ToolCall(callID, "calculator", args)}},
		openaifake.Reply{Content: answer})
}

func TestRetryAndUndoLeaveExactlyTheExpectedRows(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	scriptCalculatorTurn(h, "call_1", `{"expression":"6*7"}`, "It is 42.")
	h.LLM.Script(openaifake.Reply{Content: "Forty-two."}) // the /retry
	h.Start()
	h.Say(jane, "what is 6*7?")
	if got := rows(h, jane.ID); len(got) != 5 {
		t.Fatalf("rows before /retry: %q", got)
	}

	if got := h.Say(jane, "/retry"); got != "Forty-two." {
		t.Fatalf("/retry answered %q", got)
	}
	if got, want := strings.Join(rows(h, jane.ID), "|"), "user:what is 6*7?|assistant:Forty-two."; got != want {
		t.Fatalf("rows after /retry: %q, want %q", got, want)
	}
	reqs := h.LLM.Requests()
	if last := reqs[len(reqs)-1].Messages; len(last) != 2 || !strings.HasSuffix(last[1].Content, "what is 6*7?") {
		t.Fatalf("the retried call saw %+v", last)
	}
	if _, telegramID, _ := storedAnswer(h, jane.ID); telegramID == 0 {
		t.Error("the retried answer's delivery was not recorded")
	}

	h.Say(jane, "second question")
	got := h.Say(jane, "/undo")
	if !strings.Contains(got, "“second question”") || !strings.Contains(got, "2 messages") { // the question and its answer
		t.Fatalf("/undo said %q", got)
	}
	if got, want := strings.Join(rows(h, jane.ID), "|"), "user:what is 6*7?|assistant:Forty-two."; got != want {
		t.Fatalf("rows after /undo: %q, want %q", got, want)
	}
	h.Say(jane, "/undo")
	if got := rows(h, jane.ID); len(got) != 0 {
		t.Fatalf("rows after the second /undo: %q", got)
	}
	if got := h.Say(jane, "/undo"); !strings.Contains(got, "nothing to take back") {
		t.Fatalf("/undo of nothing said %q", got)
	}
	// A turn that used a tool: its call, result and note are rows, but the
	// user saw one answer, and that is what /undo counts.
	scriptCalculatorTurn(h, "call_u", `{"expression":"2*2"}`, "Four.")
	h.Say(jane, "what is 2*2?")
	if got := h.Say(jane, "/undo"); !strings.Contains(got, "“what is 2*2?” and what followed it, 2 messages") {
		t.Fatalf("/undo of a tool turn said %q", got)
	}
	if got := h.Say(jane, "/retry"); !strings.Contains(got, "nothing to answer again") {
		t.Fatalf("/retry of nothing said %q", got)
	}
	if n := h.Count(`SELECT count(*) FROM conversation_rollbacks`); n != 4 {
		t.Fatalf("%d rollbacks logged, want 1 retry and 3 undos", n)
	}
}

func TestExportSendsEveryMessageAsMarkdownAndJSON(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	scriptCalculatorTurn(h, "call_1", `{"expression":"6*7"}`, "It is **42**.")
	h.Start()
	if got := h.Say(jane, "/export"); !strings.Contains(got, "nothing to export") {
		t.Fatalf("/export of nothing said %q", got)
	}
	h.Say(jane, "what is 6*7?")
	h.Say(jane, "and <html> & `code`?")
	docs := h.SayAll(jane, "/export")
	if len(docs) != 2 || docs[0].Document == nil || docs[1].Document == nil {
		t.Fatalf("/export sent %+v", docs)
	}
	md, js := docs[0].Document, docs[1].Document
	if !strings.HasSuffix(md.Name, ".md") || !strings.HasSuffix(js.Name, ".json") || !strings.Contains(md.Caption, "4 messages") {
		t.Fatalf("documents %q (%q) and %q", md.Name, md.Caption, js.Name)
	}
	// One count of messages: the two sent and the two answers shown (not
	// the tool call, its result or the note), in /export, /history and
	// /undo; /usage counts the two sent, not the commands.
	if got := h.Say(jane, "/history"); !strings.Contains(got, "(4)") {
		t.Errorf("/history = %q, want 4 messages", got)
	}
	if got := h.Say(jane, "/usage"); !strings.Contains(got, "Today: messages: 2,") {
		t.Errorf("/usage = %q, want 2 messages", got)
	}

	var exported struct {
		Conversation map[string]any
		Messages     []map[string]any
	}
	if err := json.Unmarshal([]byte(js.Content), &exported); err != nil {
		t.Fatalf("the JSON export does not parse: %v", err)
	}
	res, _ := h.DB.Query(context.Background(), `SELECT m.id, m.role, m.content, m.conversation_id::text FROM messages m
		JOIN conversations c ON c.id = m.conversation_id WHERE c.chat_id = $1 ORDER BY m.id`, jane.ID)
	i := 0
	for ; res.Next(); i++ {
		var id int64
		var role, content, conv string
		res.Scan(&id, &role, &content, &conv)
		if i >= len(exported.Messages) {
			t.Fatalf("the JSON export has %d messages, the table more", len(exported.Messages))
		}
		m := exported.Messages[i]
		if m["id"] != float64(id) || m["role"] != role || m["content"] != content || m["conversation_id"] != conv {
			t.Errorf("exported row %d = %v, want %d %s %q", i, m, id, role, content)
		}
		for _, column := range []string{"tool_calls", "tool_call_id", "tool_name", "telegram_message_id", "update_id", "metadata", "created_at"} {
			if _, ok := m[column]; !ok {
				t.Errorf("exported row %d lacks %s", i, column)
			}
		}
		shown := content
		if role == "user" {
			shown = content[strings.Index(content, "] ")+2:]
		}
		if role == "assistant" && content == "" { // the tool call row: its call is shown
			shown = `{"expression":"6*7"}`
		}
		if !strings.Contains(md.Content, shown) {
			t.Errorf("the Markdown export lacks %s row %q", role, shown)
		}
	}
	if i != 7 || len(exported.Messages) != 7 || exported.Conversation["chat_id"] != float64(jane.ID) {
		t.Fatalf("%d rows, %d exported, conversation %v", i, len(exported.Messages), exported.Conversation)
	}
}

func TestModesSwitchTheSystemPromptAndEverySwitchIsRecorded(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	modesFile := filepath.Join(t.TempDir(), "modes.yaml")
	os.WriteFile(modesFile, []byte("modes:\n  - name: pirate\n    description: talks like a pirate\n    prompt: Talk like a pirate.\n"), 0o600)
	h.Env["MODES_FILE"] = modesFile
	h.Env["SYSTEM_PROMPT"] = "You are a test bot."
	h.Start()
	lastSystem := func() string {
		reqs := h.LLM.Requests()
		return reqs[len(reqs)-1].Messages[0].Content
	}

	list := h.SayAll(jane, "/mode")[0]
	if !strings.Contains(list.Text, "✓ default") || !strings.Contains(list.Text, "• pirate — talks like a pirate") ||
		!strings.Contains(list.ReplyMarkup, `"callback_data":"mode:concise"`) {
		t.Fatalf("/mode shows %q with buttons %s", list.Text, list.ReplyMarkup)
	}
	h.TG.Press(jane, list, "mode:concise")
	h.WaitIdle()
	if answers := h.TG.Calls("answerCallbackQuery"); len(answers) != 1 || answers[0].Params["text"] != "Mode: concise" {
		t.Fatalf("the button press was answered with %+v", answers)
	}
	if edited := h.TG.Messages(jane.ID)[0]; !strings.Contains(edited.Text, "✓ concise") || !strings.Contains(edited.ReplyMarkup, "✓ concise") {
		t.Fatalf("the list was not updated: %q", edited.Text)
	}
	h.Say(jane, "hello")
	if got := lastSystem(); !strings.HasPrefix(got, "You are a test bot.\n\nMode: concise.") {
		t.Fatalf("system prompt in concise mode = %q", got)
	}

	if got := h.Say(jane, "/mode pirate"); got != "Mode: pirate. It applies from your next message." {
		t.Fatalf("/mode pirate said %q", got)
	}
	if got := h.Say(jane, "/mode pirate"); !strings.Contains(got, "already") {
		t.Fatalf("/mode pirate again said %q", got)
	}
	if got := h.Say(jane, "/mode nonsense"); !strings.Contains(got, "There is no mode “nonsense”") {
		t.Fatalf("/mode nonsense said %q", got)
	}
	h.Say(jane, "ahoy")
	if got := lastSystem(); got != "You are a test bot.\n\nTalk like a pirate." {
		t.Fatalf("system prompt in pirate mode = %q", got)
	}

	h.Say(jane, "/new")
	h.Say(jane, "back to normal")
	if got := lastSystem(); got != "You are a test bot." {
		t.Fatalf("system prompt after /new = %q", got)
	}
	// The purger deletes what /new left in the background: wait for it.
	if !wait.Until(10*time.Millisecond, func() bool { return h.Count(`SELECT count(*) FROM mode_switches`) == 1 }) {
		t.Fatalf("the old conversation's mode switches were never purged: %d left", h.Count(`SELECT count(*) FROM mode_switches`))
	}
	res, _ := h.DB.Query(context.Background(), `SELECT from_mode || '>' || to_mode || ':' || reason FROM mode_switches ORDER BY id`)
	var switches []string
	for res.Next() {
		var s string
		res.Scan(&s)
		switches = append(switches, s)
	}
	// The first two belonged to the conversation /new deleted.
	if got := strings.Join(switches, " "); got != "pirate>default:new" {
		t.Fatalf("mode_switches = %q", got)
	}
}

func TestModeSwitchesAreKeptForTheConversation(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Start()
	h.Say(ivan, "/mode coder")
	h.Say(ivan, "/mode translator")
	n := h.Count(`SELECT count(*) FROM mode_switches s JOIN conversations c ON c.id = s.conversation_id
		WHERE c.chat_id = $1 AND c.mode = 'translator'
		  AND ((s.from_mode = 'default' AND s.to_mode = 'coder') OR (s.from_mode = 'coder' AND s.to_mode = 'translator'))
		  AND s.reason = 'command' AND s.switched_at <= now()`, ivan.ID)
	if n != 2 {
		t.Fatalf("%d matching mode_switches rows, want 2", n)
	}
}

var jane2 = telegramfake.User{ID: 503, FirstName: "Jane Two", LanguageCode: "en-GB"}

func TestHelpListsEveryCommandAndTheMenuIsRegistered(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["ADMIN_USER_IDS"] = fmt.Sprint(jane.ID)
	h.Start()
	commands := []string{"start", "help", "new", "retry", "stop", "undo", "history", "mode", "model", "export",
		"memory", "forget", "reminders", "cancel_reminder", "tasks", "approvals", "tools", "usage", "voice", "image"}
	admin := h.Say(jane, "/help")
	for _, name := range []string{"stats", "user"} {
		if !strings.Contains(admin, "/"+name+" — ") {
			t.Errorf("the admin's /help lacks /%s", name)
		}
	}
	for _, who := range []struct {
		user    string
		help    string
		menuFor string
	}{{"en", h.Say(jane2, "/help"), ""}, {"ru", h.Say(ivan, "/help"), "ru"}} {
		var menu []struct{ Command, Description string }
		for _, call := range h.TG.Calls("setMyCommands") {
			if call.Params["language_code"] == who.menuFor {
				json.Unmarshal([]byte(call.Params["commands"]), &menu)
			}
		}
		if len(menu) != len(commands) {
			t.Errorf("%s menu = %+v", who.user, menu)
		}
		if strings.Contains(who.help, "/stats") {
			t.Errorf("%s /help shows an admin command to a non-admin", who.user)
		}
		for i, name := range commands {
			if !regexp.MustCompile(`(?m)^/` + name + ` — \S`).MatchString(who.help) {
				t.Errorf("%s /help lacks /%s:\n%s", who.user, name, who.help)
			}
			if i < len(menu) && (menu[i].Command != name || menu[i].Description == "") {
				t.Errorf("%s menu entry %d = %+v, want %s", who.user, i, menu[i], name)
			}
		}
	}
}

func TestHistoryShowsTheLastMessagesWithTheirTimes(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Start()
	if got := h.Say(ivan, "/history"); !strings.Contains(got, "пуст") {
		t.Fatalf("/history of nothing said %q", got)
	}
	for _, text := range []string{"один", "два", "три"} {
		h.Say(ivan, text)
	}
	got := h.Say(ivan, "/history 3")
	lines := strings.Split(got, "\n")
	if len(lines) != 5 || !strings.Contains(lines[0], "Europe/Moscow") {
		t.Fatalf("/history 3 said %q", got)
	}
	for i, want := range []string{"Бот: echo: два", "Вы: три", "Бот: echo: три"} {
		// Dates look the same everywhere the bot writes them (/reminders, approvals, /user, exports).
		if !regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d ` + want + `$`).MatchString(lines[2+i]) {
			t.Errorf("line %d = %q, want the time and %q", i, lines[2+i], want)
		}
	}
	if got := h.Say(ivan, "/history"); len(strings.Split(got, "\n")) != 2+6 {
		t.Errorf("/history said %q, want all six messages", got)
	}
	for _, bad := range []string{"/history zero", "/history 0", "/history 1000"} {
		if got := h.Say(ivan, bad); !strings.Contains(got, "/history N") {
			t.Errorf("%s said %q", bad, got)
		}
	}
}

// A long conversation: /export streams it into documents of at most
// EXPORT_PART_BYTES, each one whole (the JSON parts parse, the Markdown
// parts start with the heading), in order, and says where it had to stop.
func TestALongExportIsSplitAndCutAndSaysSo(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	const part = 64 << 10
	h.Env["EXPORT_PART_BYTES"] = fmt.Sprint(part)
	h.Start()
	fill := func(user telegramfake.User, rows int) {
		h.Say(user, "hello")
		if _, err := h.DB.Exec(context.Background(), `INSERT INTO messages (conversation_id, role, content)
			SELECT c.id, 'assistant', 'row ' || i || ' ' || repeat('x', 200)
			FROM conversations c, generate_series(1, $2::int) i WHERE c.chat_id = $1`, user.ID, rows); err != nil {
			t.Fatal(err)
		}
	}
	check := func(user telegramfake.User, wantCut bool) {
		t.Helper()
		res, _ := h.DB.Query(context.Background(), `SELECT m.id FROM messages m JOIN conversations c ON c.id = m.conversation_id
			WHERE c.chat_id = $1 ORDER BY m.id`, user.ID)
		var rows []int64
		for res.Next() {
			var id int64
			res.Scan(&id)
			rows = append(rows, id)
		}
		sent := h.SayAll(user, "/export")
		docs := map[string][]*telegramfake.Document{}
		var notes []string
		for _, m := range sent {
			if m.Document == nil {
				notes = append(notes, m.Text)
				continue
			}
			ext := m.Document.Name[strings.LastIndex(m.Document.Name, ".")+1:]
			docs[ext] = append(docs[ext], m.Document)
		}
		md, js := docs["md"], docs["json"]
		for ext, parts := range docs {
			if len(parts) < 2 || len(parts) > 4 {
				t.Fatalf("%d %s documents, want 2 to 4", len(parts), ext)
			}
			for i, d := range parts {
				if len(d.Content) > part {
					t.Errorf("%s part %d is %d bytes, over %d", ext, i+1, len(d.Content), part)
				}
				name, caption := fmt.Sprintf("-part%d-of-%d.%s", i+1, len(parts), ext), fmt.Sprintf("Part %d of %d.", i+1, len(parts))
				if !strings.HasSuffix(d.Name, name) || !strings.HasSuffix(d.Caption, caption) {
					t.Errorf("%s part %d is named %q, captioned %q", ext, i+1, d.Name, d.Caption)
				}
			}
		}
		var ids []int64
		for i, d := range js {
			var doc struct {
				Conversation map[string]any
				Messages     []struct{ ID int64 }
			}
			if err := json.Unmarshal([]byte(d.Content), &doc); err != nil || doc.Conversation["chat_id"] != float64(user.ID) {
				t.Fatalf("JSON part %d does not parse whole: %v", i+1, err)
			}
			for _, m := range doc.Messages {
				ids = append(ids, m.ID)
			}
		}
		var markdown strings.Builder
		for i, d := range md {
			if !strings.HasPrefix(d.Content, "# membot conversation") {
				t.Errorf("Markdown part %d starts %.40q", i+1, d.Content)
			}
			markdown.WriteString(d.Content)
		}
		if len(ids) > len(rows) || !slices.Equal(ids, rows[:len(ids)]) {
			t.Fatalf("the parts hold %d rows that are not the conversation's first %d in order", len(ids), len(ids))
		}
		last := fmt.Sprintf("row %d ", len(ids)-2) // after "hello" and its answer
		if !strings.Contains(markdown.String(), last) || strings.Contains(markdown.String(), fmt.Sprintf("row %d ", len(ids)-1)) {
			t.Errorf("the Markdown parts do not end with the JSON parts' last row")
		}
		if !strings.Contains(md[0].Caption, fmt.Sprintf("%d messages", len(ids))) { // every row here is a message; the files' own
			t.Errorf("first caption %q", md[0].Caption)
		}
		cut := fmt.Sprintf("stops after message %d of %d: /export sends at most 4 files of 64 KB", len(ids), len(rows))
		switch {
		case wantCut && (len(ids) == len(rows) || len(notes) != 1 || !strings.Contains(notes[0], cut)):
			t.Errorf("cut at %d of %d rows, told %q; want %q", len(ids), len(rows), notes, cut)
		case !wantCut && (len(ids) != len(rows) || len(notes) != 0):
			t.Errorf("%d of %d rows exported, told %q", len(ids), len(rows), notes)
		}
	}

	fill(jane, 300) // ~100 kB of JSON: split, whole
	check(jane, false)
	john := telegramfake.User{ID: 503, FirstName: "John", LanguageCode: "en"}
	fill(john, 3000) // ~1 MB: four parts, then cut
	check(john, true)
}

// Thirty /export in a row: the first EXPORTS_PER_HOUR (3 by default) send
// their two documents, every later one is told the bound and when the
// next export is possible, and sends nothing.
func TestExportsAreBoundedPerHour(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Start()
	h.Say(jane, "something to export")
	before := h.LastMessageID(jane.ID)
	var last int64
	for range 30 {
		last = h.TG.SendText(jane, "/export")
	}
	h.WaitDone(last)
	h.WaitIdle()
	docs, limited := 0, 0
	for _, m := range h.MessagesAfter(jane.ID, before) {
		switch {
		case m.Document != nil:
			docs++
		case strings.HasPrefix(m.Text, "/export sends at most 3 exports an hour, and you have had them. The next one is possible at "):
			limited++
		default:
			t.Errorf("an /export was answered %q", m.Text)
		}
	}
	if docs != 6 || limited != 27 {
		t.Fatalf("30 /export sent %d documents and %d refusals; want 6 (3 exports) and 27", docs, limited)
	}
	if n := h.Count(`SELECT count(*) FROM events WHERE type = 'export_sent' AND telegram_user_id = $1`, jane.ID); n != 3 {
		t.Errorf("%d exports recorded, want 3", n)
	}
}

// A message that reaches the bot late (delivered after a pause, retried,
// imported) is shown at the time it was written, Telegram's date, not
// when it was stored: in /history, in /export and to the model.
func TestAMessageIsShownAtTheTimeItWasWritten(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Start()
	written := time.Now().Add(-50 * time.Hour).Truncate(time.Minute)
	msg := telegramfake.TextMessage(ivan.ID, "private", ivan, "the parcel left the depot")
	msg["date"] = written.Unix()
	h.Expect(ivan.ID, func() int64 { return h.TG.AddUpdate("message", msg) })
	moscow, _ := time.LoadLocation("Europe/Moscow")
	want := written.In(moscow).Format("2006-01-02 15:04") + " Вы: the parcel left the depot"
	if got := h.Say(ivan, "/history 2"); !strings.Contains(got, want) {
		t.Fatalf("/history said %q; want the line %q", got, want)
	}
	if n := h.Count(`SELECT count(*) FROM messages WHERE role = 'user' AND written_at = $1 AND created_at > $1 + interval '49 hours'`, written); n != 1 {
		t.Fatalf("%d user rows written at %v and stored now", n, written)
	}
}
