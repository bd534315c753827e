package bot_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/membot/membot/internal/testing/telegramfake"
	"github.com/membot/membot/internal/testing/testkit"
)

// A database pointed at another bot, or at a Bot API server whose update
// ids start again, answers the new messages: their ids are the old ones
// again, and they used to be dropped as "there already", without a word.
// Now each is stored (under a new id when an earlier update holds its
// own), answered, and the renumbering is logged.
func TestMessagesAreAnsweredWhenUpdateIDsStartAgain(t *testing.T) {
	t.Parallel()
	for name, otherBot := range map[string]bool{"another bot": true, "the same bot, ids from 1 again": false} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.Start()
			first := h.TG.SendText(jane, "before the switch")
			h.WaitDone(first)
			h.Say(jane, "and one more")
			h.Stop()

			// A new Bot API server: its update ids start where the first one's did.
			tg := telegramfake.New(testkit.Token)
			t.Cleanup(tg.Close)
			if otherBot {
				tg.Handle("getMe", func(telegramfake.Call) (any, *telegramfake.Fault) {
					bot := tg.Bot()
					bot.ID = 77
					return bot, nil
				})
			}
			h.TG, h.Env["TELEGRAM_API_URL"] = tg, tg.URL()
			h.Start()
			again := tg.SendText(jane, "after the switch")
			if again != first {
				t.Fatalf("the new server's first update is %d, the old one's was %d: the test needs them equal", again, first)
			}
			h.WaitCount(`SELECT count(*) FROM updates WHERE (payload->>'update_id')::bigint = $1 AND state = 'done'`, 2, again)
			if shown := strings.Join(h.Shown(jane.ID), "\n"); !strings.Contains(shown, "echo: after the switch") {
				t.Fatalf("the message after the switch was not answered; the chat shows:\n%s", shown)
			}
			h.WaitLog(`stored under a new id.*telegram_update_id=` + strconv.FormatInt(again, 10))
			if otherBot {
				if n := h.Count(`SELECT count(*) FROM updates WHERE bot_id = 77`); n != 1 {
					t.Errorf("%d updates of the new bot, want 1", n)
				}
				if n := h.Count(`SELECT count(*) FROM updates WHERE bot_id = $1`, telegramfake.BotID); n != 2 {
					t.Errorf("%d updates of the first bot, want 2", n)
				}
			}
			if n := h.Count(`SELECT count(*) FROM messages WHERE role = 'user' AND content LIKE '%after the switch'`); n != 1 {
				t.Errorf("%d user rows for the message after the switch, want 1", n)
			}
		})
	}
}
