package main

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/pgtest"
	"github.com/membot/membot/internal/testing/telegramfake"
	"github.com/membot/membot/internal/testing/wait"
)

// The built binary, started where nothing answers for Telegram, says
// why it waits (the connection is refused), not only that it waits; given
// a token Telegram refuses, it stops at once and says that (exit 2).
func TestTheBinarySaysWhyTelegramDoesNotAnswer(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	dsn := pgtest.New(t)
	tg, llm := telegramfake.New(testToken), openaifake.New()
	t.Cleanup(tg.Close)
	t.Cleanup(llm.Close)

	logs := &syncBuffer{}
	startBinary(t, bin, binaryEnv(tg, llm, dsn, "TELEGRAM_API_URL=http://127.0.0.1:1"), logs)
	want := `msg="still waiting for Telegram to answer getMe: nothing listens at 127.0.0.1:1 (connection refused): check TELEGRAM_API_URL and that the Bot API server runs"`
	for deadline := time.Now().Add(wait.Timeout()); !strings.Contains(logs.String(), want); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s in the log:\n%s", want, logs.String())
		}
	}

	refused := exec.Command(bin)
	refused.Env = binaryEnv(tg, llm, dsn, "TELEGRAM_BOT_TOKEN=654321:ANOTHER-token")
	out, err := refused.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 ||
		!strings.Contains(string(out), "membot: TELEGRAM_BOT_TOKEN: the token was refused (401: Unauthorized): copy it again from @BotFather") {
		t.Fatalf("with a refused token: %v\n%s", err, out)
	}
}
