package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/pgtest"
	"github.com/membot/membot/internal/testing/telegramfake"
	"github.com/membot/membot/internal/testing/testkit"
)

// forgetMe has an id that appears nowhere else, so a search of every row
// for it finds exactly his.
var forgetMe = telegramfake.User{ID: 7700990011, FirstName: "Фёдор", Username: "fyodor", LanguageCode: "ru"}

const group = -100555

// chatOnce fills the database the way real use does: a tool that works, a
// tool that fails, a plain answer, a group conversation with two people,
// a reset.
func chatOnce(t *testing.T, h *harness) {
	t.Helper()
	h.LLM.Script(
		openaifake.Reply{ToolCalls: []openai.ToolCall{openaifake.ToolCall("c1", "calculator", `{"expression":"6*7"}`)}},
		openaifake.Reply{Content: "42"},
		openaifake.Reply{ToolCalls: []openai.ToolCall{openaifake.ToolCall("c2", "no_such_tool", `{}`)}},
		openaifake.Reply{Content: "не вышло"},
	)
	if got := h.Say(forgetMe, "сколько 6*7?"); got != "42" {
		t.Fatalf("tool turn = %q", got)
	}
	if got := h.Say(forgetMe, "а так?"); got != "не вышло" {
		t.Fatalf("failing tool turn = %q", got)
	}
	h.Say(jane, "hello")
	h.Say(jane, "/new")
	h.Say(jane, "after the reset")
	for _, u := range []telegramfake.User{forgetMe, jane} {
		before := len(h.TG.SentTo(group))
		h.WaitDone(h.TG.SendMessage(group, "supergroup", u, "@membot_test_bot hi from "+u.FirstName))
		if len(h.TG.SentTo(group)) <= before {
			t.Fatal("no answer in the group")
		}
	}
	h.WaitIdle()
}

func TestViewsAndAdminBotCommandsAnswerTheAdminsQuestions(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["ADMIN_USER_IDS"] = fmt.Sprint(jane.ID)
	h.Start()
	chatOnce(t, h)

	// conversation_log: every stored message, with who, where and local time.
	// (Conversations /new left are purged in the background; the view leaves them out already.)
	if a, b := h.Count(`SELECT count(*) FROM conversation_log`), h.Count(`SELECT count(*) FROM messages m
		JOIN conversations c ON c.id = m.conversation_id WHERE c.reset_at IS NULL`); a != b || a == 0 {
		t.Fatalf("conversation_log has %d rows, messages %d", a, b)
	}
	if n := h.Count(`SELECT count(*) FROM conversation_log WHERE telegram_user_id = $1 AND chat_id = $1 AND username = 'fyodor'
		AND local_time = written_at AT TIME ZONE 'Europe/Moscow'`, forgetMe.ID); n != 10 {
		// 2 turns of user, assistant(tool call), tool, assistant, system
		t.Fatalf("conversation_log rows of his private chat = %d, want 10", n)
	}
	var roles string
	h.DB.QueryRow(context.Background(), `SELECT string_agg(role, ' ' ORDER BY message_id) FROM conversation_log WHERE chat_id = $1`, forgetMe.ID).Scan(&roles)
	if roles != "user assistant tool assistant system user assistant tool assistant system" {
		t.Fatalf("roles = %q", roles)
	}

	// daily_usage: per user per day, the same numbers the base tables give.
	var messages, calls, tokens int
	err := h.DB.QueryRow(context.Background(), `SELECT messages, model_calls, tokens FROM daily_usage
		WHERE telegram_user_id = $1 AND day = (now() AT TIME ZONE 'Europe/Moscow')::date`, forgetMe.ID).Scan(&messages, &calls, &tokens)
	if err != nil {
		t.Fatal(err)
	}
	wantTokens := h.Count(`SELECT sum((metadata->>'prompt_tokens')::int + (metadata->>'completion_tokens')::int)
		FROM messages m JOIN conversations c ON c.id = m.conversation_id
		WHERE m.role = 'assistant' AND m.update_id IN (SELECT update_id FROM updates WHERE payload->'message'->'from'->>'id' = $1)`, fmt.Sprint(forgetMe.ID))
	if messages != 3 || calls != 5 || tokens != wantTokens || tokens == 0 {
		t.Fatalf("daily_usage = %d messages, %d calls, %d tokens; want 3, 5, %d", messages, calls, tokens, wantTokens)
	}
	if n := h.Count(`SELECT messages FROM daily_usage WHERE telegram_user_id = $1`, jane.ID); n != 4 { // /new counts
		t.Fatalf("jane's messages = %d, want 4", n)
	}

	// tool_usage: per tool per day, with the failure counted.
	rows, _ := h.DB.Query(context.Background(), `SELECT tool_name, calls, errors FROM tool_usage ORDER BY tool_name`)
	var got []string
	for rows.Next() {
		var name string
		var c, e int
		rows.Scan(&name, &c, &e)
		got = append(got, fmt.Sprintf("%s:%d/%d", name, c, e))
	}
	if strings.Join(got, " ") != "calculator:1/0 no_such_tool:1/1" {
		t.Fatalf("tool_usage = %v", got)
	}
	// In Telegram: /stats and /user for admins; others are told so.
	if got := h.Say(jane, "/stats"); !strings.Contains(got, "Users: 2, active today: 2") || !strings.Contains(got, "Messages today: 8") { // /stats itself counts
		t.Fatalf("/stats = %q", got)
	}
	if got := h.Say(jane, fmt.Sprint("/user ", forgetMe.ID)); !strings.Contains(got, "@fyodor, Фёдор") || !strings.Contains(got, "Today: messages: 3") {
		t.Fatalf("/user = %q", got)
	}
	if got := h.Say(jane, "/user 12345"); !strings.Contains(got, "no user 12345") {
		t.Fatalf("/user of a stranger = %q", got)
	}
	if got := h.Say(forgetMe, "/stats"); !strings.Contains(got, "/stats — только для администраторов бота") {
		t.Fatalf("/stats for a non-admin = %q", got)
	}
	if got := h.Say(forgetMe, "/user 1"); !strings.Contains(got, "/user — только для администраторов бота") {
		t.Fatalf("/user for a non-admin = %q", got)
	}

	// The reset and the delivered answers are in the event log.
	if n := h.Count(`SELECT count(*) FROM events WHERE type = 'conversation_reset' AND telegram_user_id = $1
		AND (payload->>'deleted_messages')::int = 2`, jane.ID); n != 1 {
		t.Fatalf("conversation_reset events = %d", n)
	}
	if n := h.Count(`SELECT count(*) FROM events WHERE type = 'reply_sent'`); n != 6 {
		t.Fatalf("reply_sent events = %d, want 6 (the model's answers)", n)
	}
}

func TestAdminCommandLineAndTheRightToBeForgotten(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Start()
	chatOnce(t, h)
	// Jane answers his group message, quoting it: her words are hers, not
	// his (neither exported nor forgotten with him), but the quote of his goes.
	reply := telegramfake.TextMessage(group, "supergroup", jane, "@membot_test_bot I agree with Fyodor")
	quoted := telegramfake.TextMessage(group, "supergroup", forgetMe, "@membot_test_bot hi from Фёдор")
	quoted["message_id"] = 7
	reply["reply_to_message"] = quoted
	h.WaitDone(h.TG.AddUpdate("message", reply))
	h.WaitIdle()

	// On the command line.
	out, err := runAdmin(h, "stats")
	if err != nil || !regexp.MustCompile(`(?m)^users +2$`).MatchString(out) || !regexp.MustCompile(`(?m)^tool calls today +2$`).MatchString(out) {
		t.Fatalf("admin stats = %v\n%s", err, out)
	}
	// His newest four rows: the end of his private chat, then his message in
	// the group and its answer (not Jane's, though he opened that conversation).
	out, err = runAdmin(h, "history", "--user", fmt.Sprint(forgetMe.ID), "--limit", "4")
	if err != nil || strings.Count(out, "\n") != 4 || !strings.Contains(out, "assistant: не вышло") ||
		!strings.HasSuffix(out, "chat -100555  assistant: echo: Фёдор (@fyodor): @membot_test_bot hi from Фёдор\n") || strings.Contains(out, "Jane") {
		t.Fatalf("admin history = %v\n%s", err, out)
	}
	// A group's history by its chat id (negative), everyone's messages in it.
	out, err = runAdmin(h, "history", "--user", fmt.Sprint(int64(group)), "--limit", "50")
	if err != nil || !strings.Contains(out, "Jane (id 502): @membot_test_bot I agree with Fyodor") ||
		!strings.Contains(out, "Фёдор (@fyodor): @membot_test_bot hi from Фёдор") || strings.Count(out, "chat -100555") != strings.Count(out, "\n") {
		t.Fatalf("admin history of a group = %v\n%s", err, out)
	}
	out, err = runAdmin(h, "export", "--user", fmt.Sprint(forgetMe.ID))
	if err != nil {
		t.Fatal(err)
	}
	var export struct {
		UserID int64                        `json:"telegram_user_id"`
		Tables map[string][]json.RawMessage `json:"tables"`
	}
	if err := json.Unmarshal([]byte(out), &export); err != nil {
		t.Fatalf("export is not JSON: %v\n%s", err, out)
	}
	if export.UserID != forgetMe.ID || len(export.Tables["users"]) != 1 || len(export.Tables["messages"]) != 12 ||
		len(export.Tables["updates"]) != 3 || len(export.Tables["llm_calls"]) != 5 {
		t.Fatalf("export: user %d, rows per table: users %d, messages %d, updates %d, llm_calls %d", export.UserID,
			len(export.Tables["users"]), len(export.Tables["messages"]), len(export.Tables["updates"]), len(export.Tables["llm_calls"]))
	}
	if _, err := runAdmin(h, "forget"); err == nil || !strings.Contains(err.Error(), "--user") {
		t.Fatalf("forget without --user: %v", err)
	}

	// Every table, searched row by row for his id (messages by his words).
	tables := rowsOf(t, h, `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`)
	if len(tables) < 8 {
		t.Fatalf("only %d tables found: %v", len(tables), tables)
	}
	his := func() map[string]int {
		found := map[string]int{}
		for _, table := range tables {
			q := fmt.Sprintf(`SELECT count(*) FROM %q t WHERE row_to_json(t)::text LIKE '%%%d%%'`, table, forgetMe.ID)
			if n := h.Count(q); n > 0 {
				found[table] = n
			}
		}
		if n := h.Count(`SELECT count(*) FROM messages WHERE content LIKE '%6*7%' OR content LIKE '%hi from Фёдор%'`); n > 0 {
			found["messages"] = n
		}
		return found
	}
	if before := his(); len(before) < 6 {
		t.Fatalf("before forgetting, his rows are in only %v", before)
	}

	h.Stop() // the right to be forgotten works on a stopped bot as on a running one
	out, err = runAdmin(h, "forget", "--user", fmt.Sprint(forgetMe.ID))
	if err != nil || !strings.Contains(out, "is forgotten") {
		t.Fatalf("admin forget = %v\n%s", err, out)
	}

	// No row of his remains in any table; everyone else's does.
	if after := his(); len(after) > 0 {
		t.Errorf("rows of the forgotten user remain: %v", after)
	}
	for _, q := range []string{
		`SELECT count(*) FROM users WHERE telegram_user_id = 502`,
		`SELECT count(*) FROM messages WHERE content LIKE '%hi from Jane'`,
		`SELECT count(*) FROM llm_calls WHERE telegram_user_id = 502`,
		`SELECT count(*) FROM events WHERE telegram_user_id = 502`,
		`SELECT count(*) FROM updates WHERE chat_id = 502`,
		`SELECT count(*) FROM conversations WHERE chat_id = -100555`, // the group stays, for Jane
	} {
		if h.Count(q) == 0 {
			t.Errorf("someone else's rows went too: %s", q)
		}
	}
	if n := h.Count(`SELECT count(*) FROM messages WHERE content LIKE '%hi from Фёдор'`); n != 0 {
		t.Error("his group message remains")
	}
	if n := h.Count(`SELECT count(*) FROM updates WHERE payload->'message'->>'text' LIKE '%I agree with Fyodor'
		AND NOT payload->'message' ? 'reply_to_message'`); n != 1 {
		t.Errorf("Jane's reply to him: %d updates kept without his quoted message, want 1", n)
	}
	if n := h.Count(`SELECT count(*) FROM messages WHERE content LIKE '%I agree with Fyodor'`); n == 0 {
		t.Error("Jane's reply to him went with him")
	}
}

func TestAdminCommandLineRejectsBadUse(t *testing.T) {
	t.Parallel()
	env := map[string]string{"ENV_FILE": "/dev/null", "DATABASE_URL": "postgres://x@localhost/db"}
	getenv := testkit.Lookup(env)
	for _, args := range [][]string{{}, {"frobnicate"}, {"history"}, {"export", "--user", "abc"}, {"history", "--user", "1", "--limit", "0"}} {
		var out syncBuffer
		err := run(context.Background(), append([]string{"membot", "admin"}, args...), getenv, &out, &out)
		var cfgErr *configError
		if !errors.As(err, &cfgErr) {
			t.Errorf("admin %v: %v, want a usage error", args, err)
		}
	}
	// It needs no Telegram token, only the database: without DATABASE_URL,
	// membot's own PostgreSQL of DATA_DIR.
	delete(env, "DATABASE_URL")
	env["DATA_DIR"] = reachableTempDir(t)
	for _, cmd := range [][]string{{"migrate"}, {"admin", "stats"}} {
		var out syncBuffer
		if err := run(context.Background(), append([]string{"membot"}, cmd...), getenv, &out, &out); err != nil {
			t.Errorf("%v without DATABASE_URL: %v\n%s", cmd, err, out.String())
		}
	}
}

func rowsOf(t *testing.T, h *harness, query string) []string {
	t.Helper()
	rows, err := h.DB.Query(context.Background(), query)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		var s string
		rows.Scan(&s)
		out = append(out, s)
	}
	return out
}

// approveIfAsked presses Approve on the answer that asks first: the
// result of a tool no longer offered (chatOnce's) is outside text while
// it is in the window, so remember asks.
func approveIfAsked(h *harness, user telegramfake.User, answer []telegramfake.Message) {
	h.T.Helper()
	for _, m := range answer {
		for _, b := range m.Buttons() {
			if strings.HasPrefix(b.Data, "approve:") {
				h.PressForReply(user, m, b.Data)
				return
			}
		}
	}
}

// moveHouse has the model save a fact about forgetMe and then correct it,
// as the remember tool does: the old fact stays, superseded.
func moveHouse(t *testing.T, h *harness) {
	t.Helper()
	h.LLM.Script(
		openaifake.Reply{ToolCalls: []openai.ToolCall{openaifake.ToolCall("m1", "remember", `{"fact":"Lives in Kazan"}`)}},
		openaifake.Reply{Content: "Запомнил."},
	)
	approveIfAsked(h, forgetMe, h.SayAll(forgetMe, "я живу в Казани"))
	var id int64
	if err := h.DB.QueryRow(context.Background(), `SELECT id FROM memories WHERE telegram_user_id = $1`, forgetMe.ID).Scan(&id); err != nil {
		t.Fatalf("the fact was not saved: %v", err)
	}
	h.LLM.Script(
		openaifake.Reply{ToolCalls: []openai.ToolCall{openaifake.ToolCall("m2", "remember", fmt.Sprintf(`{"fact":"Lives in Tallinn","id":%d}`, id))}},
		openaifake.Reply{Content: "Поправил."},
	)
	approveIfAsked(h, forgetMe, h.SayAll(forgetMe, "я переехал в Таллин"))
	if n := h.Count(`SELECT count(*) FROM memories WHERE telegram_user_id = $1 AND superseded_by IS NOT NULL`, forgetMe.ID); n != 1 {
		t.Fatalf("%d superseded facts, want the one of Kazan", n)
	}
}

// Every ready query of docs/ADMIN.md runs, as the read-only role, on a
// database the bot filled, with the guide's example id (123456789) that
// of a user who used it; the one of a user's facts gives what the model
// sees: the current facts only.
func TestTheAdminGuideQueriesRunAsTheReadOnlyRole(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Start()
	chatOnce(t, h)
	moveHouse(t, h)
	doc, err := os.ReadFile("../../docs/ADMIN.md")
	if err != nil {
		t.Fatal(err)
	}
	var queries []string
	for _, block := range regexp.MustCompile("(?s)```sql\n(.*?)```").FindAllStringSubmatch(string(doc), -1) {
		for _, stmt := range strings.Split(block[1], ";\n") {
			var code []string
			for _, line := range strings.Split(stmt, "\n") {
				if !strings.HasPrefix(strings.TrimSpace(line), "--") {
					code = append(code, line)
				}
			}
			q := strings.TrimSpace(strings.Join(code, "\n"))
			if strings.HasPrefix(q, "SELECT") || strings.HasPrefix(q, "WITH") {
				queries = append(queries, q)
			}
		}
	}
	if len(queries) < 12 {
		t.Fatalf("found %d ready queries in docs/ADMIN.md, want a dozen or more", len(queries))
	}
	ro, err := pgx.Connect(context.Background(), pgtest.ReadOnlyURL(t, h.DSN))
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close(context.Background())
	rowsSeen, factsChecked := 0, false
	for _, q := range queries {
		q = strings.ReplaceAll(q, "123456789", fmt.Sprint(forgetMe.ID))
		rows, err := ro.Query(context.Background(), q)
		if err != nil {
			t.Errorf("%v\n%s", err, q)
			continue
		}
		var contents []string
		for rows.Next() {
			rowsSeen++
			values, err := rows.Values()
			if err != nil {
				t.Fatal(err)
			}
			if len(values) > 1 {
				contents = append(contents, fmt.Sprint(values[1]))
			}
		}
		if err := rows.Err(); err != nil {
			t.Errorf("%v\n%s", err, q)
		}
		if strings.Contains(q, "FROM memories WHERE telegram_user_id") {
			factsChecked = true
			if strings.Join(contents, "|") != "Lives in Tallinn" {
				t.Errorf("the user's facts by the guide's query: %q, want the current one only\n%s", contents, q)
			}
		}
	}
	if rowsSeen == 0 {
		t.Error("the ready queries found nothing in a used database")
	}
	if !factsChecked {
		t.Error("the guide has no query of a user's facts")
	}
}

func TestTheViewsFollowTIMEZONE(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["TIMEZONE"] = "Asia/Tokyo"
	h.Start()
	h.Say(jane, "konnichiwa")
	h.WaitLog(`msg="the admin views now show times in TIMEZONE" timezone=Asia/Tokyo`)
	h.DB.Reset() // the setting applies to sessions opened after it
	if n := h.Count(`SELECT count(*) FROM conversation_log WHERE local_time = written_at AT TIME ZONE 'Asia/Tokyo'`); n != 2 {
		t.Fatalf("%d rows in Tokyo time, want 2", n)
	}
	if n := h.Count(`SELECT count(*) FROM daily_usage WHERE day = (now() AT TIME ZONE 'Asia/Tokyo')::date AND messages = 1`); n != 1 {
		t.Fatal("daily_usage is not counted in Tokyo days")
	}
}
