package bot_test

import (
	"strings"
	"testing"

	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/testkit"
)

// A chat whose update stays in hand for longer than CHAT_BLOCKED_AFTER is
// not blocked unseen: /readyz fails naming it, membot_chats_blocked counts
// it and the log says so; once the update is done, all three clear.
func TestABlockedChatIsVisibleInReadinessMetricsAndLog(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["METRICS_ADDR"] = "127.0.0.1:0"
	h.Env["CHAT_BLOCKED_AFTER"] = "1s"
	hold := make(chan struct{})
	h.LLM.Script(openaifake.Reply{Content: "at last", Hold: hold, HoldAfter: 1})
	h.Start()
	base := "http://" + h.WaitLog(`msg="metrics server listening" addr=(\S+)`)[1]

	update := h.TG.SendText(jane, "a question the model sits on")
	h.WaitUntil("/readyz names the blocked chat", func() bool {
		code, body := testkit.Get(t, base+"/readyz")
		return code == 503 && strings.Contains(body, "chats: 1 chat(s) blocked") && strings.Contains(body, "chat 502 for")
	})
	if _, body := testkit.Get(t, base+"/metrics"); !strings.Contains(body, "\nmembot_chats_blocked 1\n") {
		t.Errorf("/metrics does not count the blocked chat")
	}
	h.WaitLog(`level=ERROR msg="a chat is blocked.*chat_id=502`)

	close(hold)
	h.WaitDone(update)
	h.WaitUntil("/readyz is ready again", func() bool {
		code, body := testkit.Get(t, base+"/readyz")
		return code == 200 && strings.Contains(body, "chats: ok")
	})
	if _, body := testkit.Get(t, base+"/metrics"); !strings.Contains(body, "\nmembot_chats_blocked 0\n") {
		t.Errorf("/metrics still counts a blocked chat")
	}
	h.WaitLog(`msg="a blocked chat goes on".*chat_id=502`)
}
