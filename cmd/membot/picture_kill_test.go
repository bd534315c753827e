package main

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/pgtest"
	"github.com/membot/membot/internal/testing/telegramfake"
	"github.com/membot/membot/internal/testing/wait"
)

// The real binary is killed (SIGKILL) after the image server returned
// /image's picture, while its photo is on its way: the picture was kept
// before the send, and the bot started again sends it, drawing and billing
// nothing again.
func TestAPictureKilledWhileSentIsSentAfterTheRestart(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	dsn := pgtest.New(t)
	tg, llm := telegramfake.New(testToken), openaifake.New()
	t.Cleanup(tg.Close)
	t.Cleanup(llm.Close)
	hold := make(chan struct{}) // the killed bot's upload, answered at the end
	t.Cleanup(func() { close(hold) })
	tg.Inject(telegramfake.Fault{Method: "sendPhoto", Hold: hold, Times: 1})
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	count := func(query string, args ...any) int {
		var n int
		if err := pool.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		return n
	}
	env := binaryEnv(tg, llm, dsn, "IMAGE_MODEL=gpt-image-1", "DAILY_TOKEN_LIMIT=20000")
	logs := &syncBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("bot logs:\n%s", logs.String())
		}
	})

	p := startBinary(t, bin, env, logs)
	update := tg.SendText(jane, "/image a red cat")
	if _, ok := tg.WaitCall("sendPhoto", wait.Timeout(), func(telegramfake.Call) bool { return true }); !ok {
		t.Fatal("the photo was never sent")
	}
	p.Process.Kill() // SIGKILL
	p.Wait()
	logs.Write([]byte("---- SIGKILL ----\n"))

	p = startBinary(t, bin, env, logs)
	if !wait.Until(20*time.Millisecond, func() bool {
		return count(`SELECT count(*) FROM updates WHERE update_id = $1 AND state = 'done'`, update) == 1
	}) {
		t.Fatal("the /image update was not handled after the restart")
	}
	if n := len(llm.ImageRequests()); n != 1 {
		t.Fatalf("%d image requests, want 1: the picture was drawn again", n)
	}
	if photos := tg.Photos(); len(photos) != 1 || photos[0].ChatID != jane.ID {
		t.Fatalf("photos delivered: %d, want the kept picture once", len(photos))
	}
	if n := count(`SELECT count(*) FROM llm_calls WHERE purpose = 'image' AND prompt_tokens > 0`); n != 1 {
		t.Fatalf("%d image calls billed, want 1", n)
	}
	if n := count(`SELECT count(*) FROM messages WHERE role = 'assistant' AND content = '[picture] a red cat'`); n != 1 {
		t.Fatalf("%d rows keep the picture, want 1", n)
	}
	if n := count(`SELECT count(*) FROM drawn_pictures`); n != 0 {
		t.Fatalf("%d pictures still kept after they were sent", n)
	}
	p.Process.Signal(syscall.SIGTERM)
	p.Wait()
}
