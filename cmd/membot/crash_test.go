package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/internal/openaifake"
	"github.com/membot/membot/internal/pgtest"
	"github.com/membot/membot/internal/telegramfake"
)

// The real binary is killed with SIGKILL at random moments while messages
// stream in from several chats, and restarted each time. In the end every
// message must have exactly one answer, in order per chat. The one exception
// is documented (README, Reliability): an answer Telegram accepted but whose
// delivery the bot had not yet recorded when it died is sent again. Such a
// duplicate is counted apart, and only allowed where a kill explains it.
func TestKill9AtRandomMomentsLosesNothingAndAnswersOnce(t *testing.T) {
	const (
		chats   = 4
		perChat = 12
		kills   = 5
	)
	bin := buildBinary(t)
	dsn := pgtest.New(t)
	tg := telegramfake.New(testToken)
	t.Cleanup(tg.Close)
	llm := openaifake.New()
	t.Cleanup(llm.Close)
	// A model with a small delay, so kills land mid-turn; every third
	// message takes a tool round, so some land between tool rows too.
	llm.RespondWith(func(req openai.ChatCompletionRequest) openaifake.Reply {
		delay := time.Duration(20+rand.IntN(100)) * time.Millisecond
		last := req.Messages[len(req.Messages)-1]
		if last.Role == openai.ChatMessageRoleUser && strings.Contains(last.Content, "calc") {
			return openaifake.Reply{Delay: delay, ToolCalls: []openai.ToolCall{openaifake.ToolCall("c", "calculator", `{"expression":"2+2"}`)}}
		}
		r := openaifake.Echo(req)
		r.Delay = delay
		return r
	})
	env := append(os.Environ(),
		"TELEGRAM_BOT_TOKEN="+testToken, "TELEGRAM_API_URL="+tg.URL(), "TELEGRAM_RATE_LIMIT=off",
		"DATABASE_URL="+dsn, "OPENAI_BASE_URL="+llm.URL(), "OPENAI_API_KEY=sk-test-key-never-logged",
		"POLL_TIMEOUT=1s", "WORKERS=4", "SHUTDOWN_TIMEOUT=5s", "ENV_FILE=/dev/null")
	logs := &syncBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("bot logs:\n%s", logs.String())
		}
	})

	// The stream: each chat's messages in order, chats interleaved at random.
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 1))
	want := map[int64][]string{}
	var order []int64
	for c := range chats {
		for range perChat {
			order = append(order, int64(601+c))
		}
	}
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	for _, chat := range order {
		n := len(want[chat])
		text := fmt.Sprintf("chat %d message %d", chat, n)
		if n%3 == 2 {
			text += " calc"
		}
		want[chat] = append(want[chat], "echo: "+text)
	}
	gaps := make([]time.Duration, len(order))
	for i := range gaps {
		gaps[i] = time.Duration(30+rng.IntN(70)) * time.Millisecond
	}
	streamed := make(chan struct{})
	go func() {
		defer close(streamed)
		next := map[int64]int{}
		for i, chat := range order {
			text := strings.TrimPrefix(want[chat][next[chat]], "echo: ")
			next[chat]++
			tg.SendText(telegramfake.User{ID: chat, FirstName: "User", LanguageCode: "en"}, text)
			time.Sleep(gaps[i])
		}
	}()

	var killed []time.Time // when each killed process was surely dead
	for range kills {
		p := startBinary(t, bin, env, logs)
		time.Sleep(time.Duration(300+rng.IntN(600)) * time.Millisecond)
		p.Process.Kill() // SIGKILL
		p.Wait()
		killed = append(killed, time.Now())
		logs.Write([]byte("---- SIGKILL ----\n"))
	}
	lastStart := len(logs.String())
	p := startBinary(t, bin, env, logs)
	<-streamed
	total := len(order)
	if _, ok := tg.WaitFor(60*time.Second, func(sent []telegramfake.Sent) bool { return answered(sent, want) == total }); !ok {
		t.Errorf("not every message was answered within 60 s")
	}
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	count := func(q string) int {
		var n int
		if err := pool.QueryRow(context.Background(), q).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	for deadline := time.Now().Add(30 * time.Second); count(`SELECT count(*) FROM updates WHERE state <> 'done'`) > 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("updates still unfinished after 30 s")
		}
	}
	// A SIGTERM before the process has set up its handler would just kill it.
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(logs.String()[lastStart:], "membot is running"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the last run never got going")
		}
	}
	p.Process.Signal(syscall.SIGTERM)
	if err := p.Wait(); err != nil {
		t.Errorf("the last run did not stop cleanly on SIGTERM: %v", err)
	}

	// What each chat received, against what it should have.
	sent := tg.Sent()
	dups, explained := 0, 0
	for chat, texts := range want {
		var got []telegramfake.Sent
		for _, m := range sent {
			if m.ChatID == chat {
				got = append(got, m)
			}
		}
		var distinct []string
		for i, m := range got {
			if i > 0 && m.Text == got[i-1].Text {
				dups++
				if inTheWindow(got[i-1], m, killed) {
					explained++
				} else {
					t.Errorf("chat %d: %q sent twice with no kill in between to explain it", chat, m.Text)
				}
				continue
			}
			distinct = append(distinct, m.Text)
		}
		if strings.Join(distinct, "|") != strings.Join(texts, "|") {
			t.Errorf("chat %d received, duplicates aside:\n%q\nwant each message answered in order:\n%q", chat, distinct, texts)
		}
	}
	got := answered(sent, want)
	firstCalls := 0
	for _, req := range llm.Requests() {
		if req.Messages[len(req.Messages)-1].Role == openai.ChatMessageRoleUser {
			firstCalls++
		}
	}
	t.Logf("injected %d, answered %d, lost %d, duplicated %d (all of them sent-but-not-recorded after a kill: %d); "+
		"kills %d; turns whose model call was repeated because a kill cut it short: %d",
		total, got, total-got, dups, explained, len(killed), firstCalls-total)

	// The database: every update handled without error, one user row and one
	// final answer per message, whatever was repeated.
	checks := map[string]int{
		`SELECT count(*) FROM updates WHERE state = 'done' AND error IS NULL`:                                           total,
		`SELECT count(*) FROM messages WHERE role = 'user'`:                                                             total,
		`SELECT count(DISTINCT update_id) FROM messages WHERE role = 'assistant' AND tool_calls IS NULL`:                total,
		`SELECT count(*) FROM messages WHERE role = 'assistant' AND tool_calls IS NULL`:                                 total,
		`SELECT count(*) FROM messages WHERE role = 'assistant' AND tool_calls IS NULL AND telegram_message_id IS NULL`: 0,
	}
	for q, n := range checks {
		if got := count(q); got != n {
			t.Errorf("%s = %d, want %d", q, got, n)
		}
	}
	// Each answer row records the delivery that stands: the last one sent.
	lastSent := map[string]int64{}
	for _, m := range sent {
		lastSent[fmt.Sprint(m.ChatID, m.Text)] = m.MessageID
	}
	rows, err := pool.Query(context.Background(), `SELECT c.chat_id, m.content, m.telegram_message_id FROM messages m
		JOIN conversations c ON c.id = m.conversation_id WHERE m.role = 'assistant' AND m.tool_calls IS NULL`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var chat, recorded int64
		var content string
		if err := rows.Scan(&chat, &content, &recorded); err != nil {
			t.Fatal(err)
		}
		if sentID := lastSent[fmt.Sprint(chat, content)]; recorded != sentID {
			t.Errorf("chat %d: the answer %q records message %d, but was last sent as %d", chat, content, recorded, sentID)
		}
	}
	// How wide the sent-but-not-recorded window was: from Telegram taking
	// the answer to the transaction that recorded it.
	sentAt := map[string]time.Time{}
	for _, m := range sent {
		sentAt[fmt.Sprint(m.ChatID, m.Text)] = m.At
	}
	rows, err = pool.Query(context.Background(), `SELECT chat_id, payload->'message'->>'text', done_at FROM updates`)
	if err != nil {
		t.Fatal(err)
	}
	var windows []time.Duration
	for rows.Next() {
		var chat int64
		var text string
		var done time.Time
		if err := rows.Scan(&chat, &text, &done); err != nil {
			t.Fatal(err)
		}
		if at, ok := sentAt[fmt.Sprint(chat, "echo: "+text)]; ok {
			windows = append(windows, done.Sub(at))
		}
	}
	slices.Sort(windows)
	if len(windows) > 0 {
		t.Logf("sent-but-not-recorded window: median %v, max %v (%d answers)", windows[len(windows)/2], windows[len(windows)-1], len(windows))
	}
	if strings.Contains(logs.String(), testToken) {
		t.Error("the token appears in the logs")
	}
}

// answered counts the wanted answers that were sent at least once.
func answered(sent []telegramfake.Sent, want map[int64][]string) int {
	got := map[string]bool{}
	for _, m := range sent {
		got[fmt.Sprint(m.ChatID, m.Text)] = true
	}
	n := 0
	for chat, texts := range want {
		for _, text := range texts {
			if got[fmt.Sprint(chat, text)] {
				n++
			}
		}
	}
	return n
}

// inTheWindow reports whether a kill explains why first, the chat's message
// just before again, was sent again: first reached Telegram before a process
// died and again came from a later process. Nothing else was sent to the
// chat in between, so the kill came before the dead process had recorded the
// delivery: had it been recorded, the update would have been done and the
// chat's next message would have come next.
func inTheWindow(first, again telegramfake.Sent, killed []time.Time) bool {
	for _, k := range killed {
		if first.At.Before(k) && again.At.After(k) {
			return true
		}
	}
	return false
}

// buildBinary builds cmd/membot into a temporary directory.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "membot")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startBinary runs the bot as its own process.
func startBinary(t *testing.T, bin string, env []string, logs *syncBuffer) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd
}
