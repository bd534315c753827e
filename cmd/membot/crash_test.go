package main

import (
	"github.com/membot/membot/internal/testing/wait"
	"github.com/membot/membot/memory/queue"

	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/pgtest"
	"github.com/membot/membot/internal/testing/telegramfake"
	"github.com/membot/membot/memory"
)

// The real binary is killed with SIGKILL at random moments while messages
// stream in from several chats, and restarted each time. In the end every
// message must have exactly one recorded answer, in order per chat. The one
// exception is documented (docs/OPERATIONS.md, The one window): an answer
// Telegram accepted but whose message the bot had not yet noted when it
// died is sent again. Such a duplicate is counted apart, and only allowed
// where a kill explains it. MEMBOT_CRASH_ROUNDS runs the scenario that
// many times (1 by default) and logs the counts of all of them.
func TestKill9AtRandomMomentsLosesNothingAndAnswersOnce(t *testing.T) {
	t.Parallel()
	crashRounds(t, func(t *testing.T, r *crashRun, c crashCounts) {
		t.Logf("injected %d, answered %d, lost %d, duplicated %d (all of them sent-but-not-noted after a kill: %d); "+
			"kills %d; turns whose model call was repeated because a kill cut it short: %d",
			r.total, c.answered, r.total-c.answered, c.duplicates+c.unexplained, c.duplicates, len(r.killed), c.modelRepeats)
		if c.partials > 0 {
			t.Errorf("%d half-written answers without streaming", c.partials)
		}
		if c.resent > 0 {
			t.Errorf("%d replies were deleted and sent again", c.resent)
		}
	}, "STREAMING=false")
}

// With streaming (the default) an answer is shown while the model writes
// it, so a kill mid-answer leaves that message as it was: the next run
// edits it into its answer. Leftovers are counted apart, and only allowed
// where a kill explains them; nothing may be lost or answered twice
// otherwise.
func TestKill9WhileAnswersAreStreamed(t *testing.T) {
	t.Parallel()
	crashRounds(t, func(t *testing.T, r *crashRun, c crashCounts) {
		t.Logf("injected %d, answered %d, lost %d; left behind by a kill: %d half-written and %d complete answers "+
			"(shown but not noted), unexplained %d; deleted and sent again %d; kills %d; turns whose model call was repeated: %d",
			r.total, c.answered, r.total-c.answered, c.partials, c.duplicates, c.unexplained, c.resent, len(r.killed), c.modelRepeats)
		if c.resent > 0 {
			t.Errorf("%d replies were deleted and sent again (a taken-over answer must finish what the dead run showed)", c.resent)
		}
	}, "STREAMING=true", "STREAM_EDIT_INTERVAL=20ms")
}

// crashRounds runs the kill scenario with settings MEMBOT_CRASH_ROUNDS
// times (1 by default), each round checked and then judged by judge, and
// logs the duplicates of all rounds and how long a sent message went
// unnoted (from a send's response to the commit of its note).
func crashRounds(t *testing.T, judge func(*testing.T, *crashRun, crashCounts), settings ...string) {
	rounds := 1
	if n, err := strconv.Atoi(os.Getenv("MEMBOT_CRASH_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	bin := buildBinary(t)
	var duplicates, partials, kills int
	var windows []time.Duration
	for round := range rounds {
		t.Run(fmt.Sprintf("round%d", round+1), func(t *testing.T) {
			r := killRepeatedly(t, bin, settings...)
			c := r.check(t)
			judge(t, r, c)
			duplicates, partials, kills = duplicates+c.duplicates+c.unexplained, partials+c.partials, kills+len(r.killed)
			windows = append(windows, c.windows...)
		})
	}
	slices.Sort(windows)
	t.Logf("%d round(s), %d kills: %d answers sent twice, %d half-written left behind", rounds, kills, duplicates, partials)
	if len(windows) > 0 {
		t.Logf("sent but not yet noted (a send's response to the commit of its note): median %v, p99 %v, max %v (%d messages)",
			windows[len(windows)/2], windows[len(windows)*99/100], windows[len(windows)-1], len(windows))
	}
}

// crashRun is what a crash scenario leaves to check.
type crashRun struct {
	tg     *telegramfake.Server
	llm    *openaifake.Server
	pool   *pgxpool.Pool
	want   map[int64][]string // each chat's answers, in order
	total  int
	killed []time.Time // when each killed process was surely dead
	logs   *syncBuffer // of every run
}

// killRepeatedly runs the scenario with the binary bin: a stream of
// messages from 6 chats, the binary killed 8 times at random moments and
// restarted, then left to answer everything and stopped with SIGTERM.
func killRepeatedly(t *testing.T, bin string, settings ...string) *crashRun {
	const (
		chats   = 6
		perChat = 20
		kills   = 8
	)
	dsn := pgtest.New(t)
	r := &crashRun{tg: telegramfake.New(testToken), llm: openaifake.New(), want: map[int64][]string{}}
	t.Cleanup(r.tg.Close)
	t.Cleanup(r.llm.Close)
	// A model with a small delay and a slow pen, so kills land mid-turn;
	// every third message takes a tool round, so some land between tool rows.
	r.llm.RespondWith(func(req openai.ChatCompletionRequest) openaifake.Reply {
		delay := time.Duration(20+rand.IntN(100)) * time.Millisecond
		last := req.Messages[len(req.Messages)-1]
		if last.Role == openai.ChatMessageRoleUser && strings.Contains(last.Content, "calc") {
			return openaifake.Reply{Delay: delay, ToolCalls: []openai.ToolCall{openaifake.ToolCall("c", "calculator", `{"expression":"2+2"}`)}}
		}
		reply := openaifake.Echo(req)
		reply.Delay, reply.ChunkDelay = delay, 10*time.Millisecond
		return reply
	})
	// LOG_LEVEL=debug: the notes' durations. The scenario kills the bot 8
	// times in seconds, so a message may well be in hand at 3 of them,
	// which would give it up (crashloop_test.go); here every message must
	// be answered.
	env := binaryEnv(r.tg, r.llm, dsn, append(settings, "LOG_LEVEL=debug", "GIVE_UP_AFTER_CRASHES=100")...)
	logs := &syncBuffer{}
	r.logs = logs
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("bot logs:\n%s", logs.String())
		}
		if strings.Contains(logs.String(), testToken) {
			t.Error("the token appears in the logs")
		}
	})

	// The stream: each chat's messages in order, chats interleaved at random.
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 1))
	// Half the chats are private (answers stream as drafts), half groups
	// (answers stream into a message that is edited).
	var order []int64
	for c := range chats {
		chat := int64(601 + c)
		if c%2 == 1 {
			chat = -chat
		}
		for range perChat {
			order = append(order, chat)
		}
	}
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	for _, chat := range order {
		n := len(r.want[chat])
		text := fmt.Sprintf("chat %d message %d", chat, n)
		if n%3 == 2 {
			text += " calc"
		}
		r.want[chat] = append(r.want[chat], "echo: "+groupPrefix(chat)+text)
	}
	r.total = len(order)
	gaps := make([]time.Duration, len(order))
	for i := range gaps {
		gaps[i] = time.Duration(30+rng.IntN(70)) * time.Millisecond
	}
	streamed := make(chan struct{})
	go func() {
		defer close(streamed)
		next := map[int64]int{}
		for i, chat := range order {
			text := strings.TrimPrefix(r.want[chat][next[chat]], "echo: ")
			next[chat]++
			if chat < 0 {
				r.tg.SendMessage(chat, "group", groupMember(chat), strings.TrimPrefix(text, "User (id "+fmt.Sprint(-chat)+"): "))
				time.Sleep(gaps[i])
				continue
			}
			r.tg.SendText(telegramfake.User{ID: chat, FirstName: "User", LanguageCode: "en"}, text)
			time.Sleep(gaps[i])
		}
	}()

	for range kills {
		p := startBinary(t, bin, env, logs)
		time.Sleep(time.Duration(300+rng.IntN(600)) * time.Millisecond)
		p.Process.Kill() // SIGKILL
		p.Wait()
		r.killed = append(r.killed, time.Now())
		logs.Write([]byte("---- SIGKILL ----\n"))
	}
	lastStart := len(logs.String())
	p := startBinary(t, bin, env, logs)
	<-streamed

	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	r.pool = pool
	for deadline := time.Now().Add(wait.Timeout()); r.count(t, `SELECT count(*) FROM updates WHERE state <> 'done'`) > 0 || r.tg.Pending() > 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("updates still unfinished after 60 s")
		}
	}
	// A SIGTERM before the process has set up its handler would just kill it.
	for deadline := time.Now().Add(wait.Timeout()); !strings.Contains(logs.String()[lastStart:], "membot is running"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the last run never got going")
		}
	}
	p.Process.Signal(syscall.SIGTERM)
	if err := p.Wait(); err != nil {
		t.Errorf("the last run did not stop cleanly on SIGTERM: %v", err)
	}
	return r
}

// binaryEnv is the environment of the built binary run against the fakes
// and the database dsn, with settings added.
func binaryEnv(tg *telegramfake.Server, llm *openaifake.Server, dsn string, settings ...string) []string {
	env := append(os.Environ(),
		"TELEGRAM_BOT_TOKEN="+testToken, "TELEGRAM_API_URL="+tg.URL(), "TELEGRAM_RATE_LIMIT=off",
		"DATABASE_URL="+dsn, "OPENAI_BASE_URL="+llm.URL(), "OPENAI_API_KEY=sk-test-key-never-logged",
		"POLL_TIMEOUT=1s", "WORKERS=4", "SHUTDOWN_TIMEOUT=5s", "ENV_FILE=/dev/null", "WEB_ADDR=", "ACCESS=open")
	return append(env, settings...)
}

// groupMember is who writes in a group of the crash scenario.
func groupMember(chat int64) telegramfake.User {
	return telegramfake.User{ID: -chat, FirstName: "User", LanguageCode: "en"}
}

// groupPrefix is what a group message starts with, as the model sees it
// (the author) and as it is written (addressed to the bot).
func groupPrefix(chat int64) string {
	if chat > 0 {
		return ""
	}
	return fmt.Sprintf("User (id %d): @membot_test_bot ", -chat)
}

// crashCounts is what check found.
type crashCounts struct {
	answered     int             // messages whose answer is recorded and shows in full
	duplicates   int             // complete answers left by a kill before their delivery was recorded
	partials     int             // half-written answers left by a kill mid-stream
	resent       int             // replies deleted and then sent again
	unexplained  int             // extra messages no kill explains (each one is also a test error)
	modelRepeats int             // first model calls made again because a kill cut the turn short
	windows      []time.Duration // how long each message sent went unnoted (the bot's debug log)
}

// check compares what the chats show and what the database recorded with
// what was wanted, failing the test on anything a kill does not explain.
func (r *crashRun) check(t *testing.T) crashCounts {
	t.Helper()
	var c crashCounts
	// The database: every update handled without error, one user row and one
	// final answer per message, whatever was repeated.
	for q, n := range map[string]int{
		`SELECT count(*) FROM updates WHERE state = 'done' AND error IS NULL`:                                           r.total,
		`SELECT count(*) FROM messages WHERE role = 'user'`:                                                             r.total,
		`SELECT count(DISTINCT update_id) FROM messages WHERE role = 'assistant' AND tool_calls IS NULL`:                r.total,
		`SELECT count(*) FROM messages WHERE role = 'assistant' AND tool_calls IS NULL`:                                 r.total,
		`SELECT count(*) FROM messages WHERE role = 'assistant' AND tool_calls IS NULL AND telegram_message_id IS NULL`: 0,
	} {
		if got := r.count(t, q); got != n {
			t.Errorf("%s = %d, want %d", q, got, n)
		}
	}

	// Where each answer was recorded as delivered, and when.
	recorded := map[string]delivery{} // by chat and answer
	rows, err := r.pool.Query(context.Background(), `SELECT c.chat_id, m.content, m.telegram_message_id
		FROM messages m JOIN conversations c ON c.id = m.conversation_id
		WHERE m.role = 'assistant' AND m.tool_calls IS NULL`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var chat int64
		var content string
		var rec delivery
		if err := rows.Scan(&chat, &content, &rec.messageID); err != nil {
			t.Fatal(err)
		}
		recorded[fmt.Sprint(chat, content)] = rec
	}

	// The chats: each wanted answer shows in full in the message recorded
	// for it, in order; every other message is explained by a kill.
	activity := map[[2]int64][]time.Time{} // by chat and message id: its send and edits, in order
	for _, s := range r.tg.Sent() {
		key := [2]int64{s.ChatID, s.MessageID}
		activity[key] = append(activity[key], s.At)
	}
	for chat, answers := range r.want {
		shown := map[int64]telegramfake.Message{}
		msgs := r.tg.Messages(chat)
		for _, m := range msgs {
			shown[m.ID] = m
		}
		standing := map[int64]bool{}
		var last int64
		for _, answer := range answers {
			rec, ok := recorded[fmt.Sprint(chat, answer)]
			if !ok || shown[rec.messageID].Text != answer {
				t.Errorf("chat %d: %q is not shown in the message recorded for it (%d)", chat, answer, rec.messageID)
				continue
			}
			if rec.messageID < last {
				t.Errorf("chat %d: %q was answered out of order", chat, answer)
			}
			last = rec.messageID
			standing[rec.messageID] = true
			c.answered++
		}
		for i, m := range msgs {
			if standing[m.ID] {
				continue
			}
			switch r.leftByAKill(chat, msgs[i:], activity, recorded) {
			case "complete":
				c.duplicates++
				t.Logf("chat %d: message %d %q was sent again after a kill", chat, m.ID, m.Text)
			case "partial":
				c.partials++
			default:
				c.unexplained++
				t.Errorf("chat %d: message %d %q is an extra no kill explains", chat, m.ID, m.Text)
			}
		}
	}
	c.resent = r.deletedAndResent(recorded)
	for _, req := range r.llm.Requests() {
		if req.Messages[len(req.Messages)-1].Role == openai.ChatMessageRoleUser {
			c.modelRepeats++
		}
	}
	c.modelRepeats -= r.total
	for _, m := range notedIn.FindAllStringSubmatch(r.logs.String(), -1) {
		if d, err := time.ParseDuration(m[1]); err == nil {
			c.windows = append(c.windows, d)
		}
	}
	return c
}

// deletedAndResent counts the replies the user saw vanish and come back:
// messages the bot deleted that showed (the start of) an answer recorded
// in another message.
func (r *crashRun) deletedAndResent(recorded map[string]delivery) int {
	texts := map[[2]int64]string{} // every message sent, as it last read
	for _, s := range r.tg.Sent() {
		texts[[2]int64{s.ChatID, s.MessageID}] = s.Text
	}
	standing := map[[2]int64]bool{}
	for chat := range r.want {
		for _, m := range r.tg.Messages(chat) {
			standing[[2]int64{chat, m.ID}] = true
		}
	}
	n := 0
	for key, text := range texts {
		if standing[key] || text == "" {
			continue
		}
		for _, answer := range r.want[key[0]] {
			if rec, ok := recorded[fmt.Sprint(key[0], answer)]; ok && rec.messageID != key[1] && strings.HasPrefix(answer, text) {
				n++
				break
			}
		}
	}
	return n
}

// delivery is where an answer was recorded as delivered.
type delivery struct {
	messageID int64
}

// notedIn finds, in the bot's debug log, how long each note of an answer's
// messages took after its send (bot.Handler.noteShown).
var notedIn = regexp.MustCompile(`msg="an answer's messages noted" .* took=(\S+)`)

// leftByAKill tells whether msgs[0], a message of the chat that stands for
// no recorded answer (the chat's later messages follow it), was left by a
// killed process: it was the chat's newest message when a process died,
// nothing touched it after, and the answer it shows all or the start of
// was recorded in a message sent after the kill. It returns "complete" or
// "partial" then, "" otherwise.
func (r *crashRun) leftByAKill(chat int64, msgs []telegramfake.Message, activity map[[2]int64][]time.Time, recorded map[string]delivery) string {
	touched := activity[[2]int64{chat, msgs[0].ID}]
	for _, kill := range r.killed {
		if !touched[len(touched)-1].Before(kill) {
			continue // still touched after this kill
		}
		newest := true
		for _, later := range msgs[1:] {
			newest = newest && !activity[[2]int64{chat, later.ID}][0].Before(kill)
		}
		if !newest {
			continue // the chat had moved on before this kill
		}
		for _, answer := range r.want[chat] {
			rec, ok := recorded[fmt.Sprint(chat, answer)]
			if !ok || !strings.HasPrefix(answer, msgs[0].Text) || activity[[2]int64{chat, rec.messageID}][0].Before(kill) {
				continue
			}
			if msgs[0].Text == answer {
				return "complete"
			}
			return "partial"
		}
	}
	return ""
}

func (r *crashRun) count(t *testing.T, query string) int {
	t.Helper()
	var n int
	if err := r.pool.QueryRow(context.Background(), query).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// buildBinary builds cmd/membot into a temporary directory.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "membot")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // as the Makefile and the image build it
	out, err := build.CombinedOutput()
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
	return startCommand(t, cmd, logs)
}

// startCommand starts cmd (the bot, run some way), its output to logs, and
// kills it at the end of the test if it still runs.
func startCommand(t *testing.T, cmd *exec.Cmd, logs *syncBuffer) *exec.Cmd {
	t.Helper()
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

// A run that dies mid-stream leaves its half-written answer showing, noted
// on the update; the run that takes the update over edits that message into
// its answer instead of sending a second one.
func TestATakenOverAnswerEditsWhatTheDeadRunShowed(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	// What the dead run did: it stored the update, began to show the answer
	// and noted the message, then died before storing the answer.
	dead := telegram.NewClient(ctx, ctx, telegram.Config{Token: testToken, APIURL: h.TG.URL()})
	id, err := dead.SendMessage(ctx, telegram.SendMessageParams{Chat: telegram.Chat{ID: jane.ID}, Text: "echo: half-wri"})
	if err != nil {
		t.Fatal(err)
	}
	ids := []int64{id}
	payload, _ := json.Marshal(map[string]any{"update_id": 9001, "message": telegramfake.TextMessage(jane.ID, "private", jane, "half-written question")})
	store := memory.NewStore(h.DB)
	if err := store.Inbox().SaveUpdates(ctx, []queue.Update{{UpdateID: 9001, ChatID: jane.ID, Payload: payload}}); err != nil {
		t.Fatal(err)
	}
	if err := store.Inbox().NoteShown(ctx, 9001, ids); err != nil {
		t.Fatal(err)
	}

	h.Start()
	h.WaitDone(9001)
	msgs := h.TG.Messages(jane.ID)
	if len(msgs) != 1 || msgs[0].ID != ids[0] || msgs[0].Text != "echo: half-written question" {
		t.Fatalf("the chat shows %+v; want the half-written message %d edited into the answer", msgs, ids[0])
	}
	if n := h.Count(`SELECT count(*) FROM messages WHERE role = 'assistant' AND telegram_message_id = $1`, ids[0]); n != 1 {
		t.Fatal("the answer row does not record the message it was shown in")
	}
}

// A run that stored the answer but died before recording its delivery
// leaves it showing (in a group, in the message it streamed into; without
// streaming, sent whole and noted): the run that takes the update over
// finishes that message in place, calling no model, deleting nothing and
// sending nothing again. In a private chat the dead run showed only a
// draft, and the answer is sent once.
func TestATakenOverStoredAnswerIsFinishedInPlaceNeverDeletedAndSentAgain(t *testing.T) {
	t.Parallel()
	const answer = "The whole answer, stored before the crash."
	for _, chat := range []struct {
		name      string
		id        int64
		kind      string
		shown     string // what the dead run sent and noted
		prefix    string
		streaming string
	}{
		{"group", -100901, "group", answer[:20], "@membot_test_bot ", "true"},
		{"private", jane.ID, "private", "", "", "true"},
		{"sent whole without streaming", jane.ID, "private", answer, "", "false"},
	} {
		t.Run(chat.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.Env["STREAMING"] = chat.streaming
			ctx := context.Background()
			const update = 9002
			payload, _ := json.Marshal(map[string]any{"update_id": update,
				"message": telegramfake.TextMessage(chat.id, chat.kind, jane, chat.prefix+"a question")})
			store := memory.NewStore(h.DB)
			if err := store.Inbox().SaveUpdates(ctx, []queue.Update{{UpdateID: update, ChatID: chat.id, Payload: payload}}); err != nil {
				t.Fatal(err)
			}
			var shown []int64
			if chat.shown != "" { // what the dead run sent
				dead := telegram.NewClient(ctx, ctx, telegram.Config{Token: testToken, APIURL: h.TG.URL()})
				id, err := dead.SendMessage(ctx, telegram.SendMessageParams{Chat: telegram.Chat{ID: chat.id}, Text: chat.shown})
				if err != nil {
					t.Fatal(err)
				}
				shown = []int64{id}
				if err := store.Inbox().NoteShown(ctx, update, shown); err != nil {
					t.Fatal(err)
				}
			}
			turn, err := store.StartTurn(ctx, memory.TurnStart{User: memory.User{TelegramUserID: jane.ID, FirstName: jane.FirstName},
				Chat: memory.Chat{ID: chat.id}, UpdateID: update, Content: "a question", HistoryLimit: 10})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := store.SaveStep(ctx, turn.ConversationID, memory.Step{Messages: []memory.Message{
				{Role: memory.RoleAssistant, Content: answer, UpdateID: update}}}); err != nil {
				t.Fatal(err)
			}

			h.Start()
			h.WaitDone(update)
			msgs := h.TG.Messages(chat.id)
			if len(msgs) != 1 || msgs[0].Text != answer || (shown != nil && msgs[0].ID != shown[0]) {
				t.Fatalf("the chat shows %+v; want the answer once, in the message the dead run showed (%v)", msgs, shown)
			}
			if n := len(h.TG.Calls("deleteMessage")) + len(h.LLM.Requests()); n != 0 {
				t.Errorf("%d deletions and model calls, want none", n)
			}
			if n := h.Count(`SELECT count(*) FROM messages WHERE role = 'assistant' AND telegram_message_id = $1`, msgs[0].ID); n != 1 {
				t.Error("the answer row does not record the message it is in")
			}
		})
	}
}
