package bot

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/internal/testing/telegramfake"
	"github.com/membot/membot/memory/queue"
)

func newTestHandler(t *testing.T) (*Handler, *telegramfake.Server) {
	t.Helper()
	tg := telegramfake.New("1:test")
	t.Cleanup(tg.Close)
	client := telegram.NewClient(context.Background(), context.Background(), telegram.Config{Token: "1:test", APIURL: tg.URL(), Retry: telegram.SendRetry{Attempts: 1}})
	return &Handler{Client: client, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}, tg
}

// panickingAgent panics on a turn; its other methods are never called.
type panickingAgent struct{ Agent }

func (panickingAgent) Reply(context.Context, agent.Request) (*agent.Reply, error) {
	panic("index out of range, somewhere deep")
}

// A panic is the dispatcher's to recover (it counts it against the update
// and, after its attempts, asks GiveUp for the apology): the handler lets
// it through rather than give the update up at its first attempt.
func TestAPanicWhileHandlingReachesTheDispatcherAndGiveUpApologises(t *testing.T) {
	h, fake := newTestHandler(t)
	h.Agent, h.Stores = panickingAgent{}, Stores{}
	user := telegramfake.User{ID: 7, FirstName: "Иван", LanguageCode: "ru"}
	payload, _ := json.Marshal(map[string]any{"update_id": 1, "message": telegramfake.TextMessage(7, "private", user, "hi")})
	u := &queue.Update{UpdateID: 1, ChatID: 7, Payload: payload}

	func() {
		defer func() {
			if p := recover(); p == nil {
				t.Error("Handle returned; want the panic passed on to the dispatcher")
			}
		}()
		h.Handle(context.Background(), u)
	}()
	if sent := fake.SentTo(7); len(sent) != 0 {
		t.Fatalf("sent %q before the update's attempts were spent", sent)
	}
	if err := h.GiveUp(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	if sent := fake.SentTo(7); len(sent) != 1 || sent[0] != tr("ru").Apology {
		t.Fatalf("sent %q, want the Russian apology", sent)
	}
}
