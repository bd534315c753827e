package main

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/bot/inbox"
	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/pgtest"
	"github.com/membot/membot/internal/testing/telegramfake"
	"github.com/membot/membot/internal/testing/testkit"
	"github.com/membot/membot/internal/testing/wait"
)

// A message whose handling kills the process (here: the test kills the
// real binary with SIGKILL whenever the model is asked about it, as a
// fatal error or the OOM killer would) must not kill every run after it.
// Each run that dies with it in hand is counted; the run after the third
// gives it up with the apology, and the chat goes on with its next message.
func TestAnUpdateThatKillsEveryRunIsGivenUpWithAnApology(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	dsn := pgtest.New(t)
	tg, llm := telegramfake.New(testToken), openaifake.New()
	t.Cleanup(tg.Close)
	t.Cleanup(llm.Close)
	deadly := make(chan struct{}, 8)
	llm.RespondWith(func(req openai.ChatCompletionRequest) openaifake.Reply {
		// Only the newest of merged unanswered messages counts (as Echo's).
		if strings.HasSuffix(openaifake.LastUserContent(req), "a deadly question") {
			deadly <- struct{}{}
			return openaifake.Reply{Content: "never sent", Delay: wait.Timeout()} // the process dies first
		}
		return openaifake.Echo(req)
	})
	env := binaryEnv(tg, llm, dsn, "METRICS_ADDR=127.0.0.1:0")
	logs := &syncBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("bot logs:\n%s", logs.String())
		}
	})
	russian := telegramfake.User{ID: 4242, FirstName: "Olga", LanguageCode: "ru"}
	poison := tg.SendText(russian, "a deadly question")
	tg.SendText(russian, "the next question")

	for kill := 1; kill <= inbox.DefaultGiveUpAfter; kill++ {
		p := startBinary(t, bin, env, logs)
		select {
		case <-deadly:
		case <-time.After(wait.Timeout()):
			t.Fatalf("run %d never asked the model about the deadly message", kill)
		}
		p.Process.Kill() // SIGKILL, as the deadly message would
		p.Wait()
		logs.Write([]byte("---- SIGKILL ----\n"))
	}
	lastStart := len(logs.String())
	startBinary(t, bin, env, logs)

	apology := texts.For("ru").Apology
	if !wait.Until(20*time.Millisecond, func() bool { return len(tg.Messages(russian.ID)) >= 2 }) {
		t.Fatalf("the chat shows %+v; want the apology, then the next answer", tg.Messages(russian.ID))
	}
	msgs := tg.Messages(russian.ID)
	if len(msgs) != 2 || msgs[0].Text != apology || msgs[1].Text != "echo: the next question" {
		t.Fatalf("the chat shows %+v; want the apology %q, then the next answer", msgs, apology)
	}
	if len(deadly) != 0 {
		t.Error("the run that gave the deadly message up asked the model about it")
	}
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var crashes int
	var state, errText string
	if err := pool.QueryRow(context.Background(), `SELECT crashes, state, coalesce(error, '') FROM updates WHERE update_id = $1`, poison).
		Scan(&crashes, &state, &errText); err != nil {
		t.Fatal(err)
	}
	if crashes != 3 || state != "done" || !strings.Contains(errText, "given up") {
		t.Errorf("the deadly update: crashes %d, state %s, error %q; want 3 crashes, done, given up", crashes, state, errText)
	}
	after := logs.String()[lastStart:]
	if !strings.Contains(after, "update given up: the process died or the handler panicked each time it was in hand") {
		t.Error("the give-up is not logged")
	}
	addr := regexp.MustCompile(`msg="metrics server listening" addr=(\S+)`).FindStringSubmatch(after)
	if addr == nil {
		t.Fatal("the last run logged no metrics address")
	}
	if _, body := testkit.Get(t, "http://"+addr[1]+"/metrics"); !strings.Contains(body, "\nmembot_updates_poisoned_total 1\n") {
		t.Errorf("/metrics does not count the update given up:\n%s", body)
	}
}
