package bot

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
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

func TestAPanicWhileHandlingIsAnsweredWithTheApology(t *testing.T) {
	h, fake := newTestHandler(t)
	h.Agent, h.Memory = panickingAgent{}, nil
	user := telegramfake.User{ID: 7, FirstName: "Иван", LanguageCode: "ru"}
	payload, _ := json.Marshal(map[string]any{"update_id": 1, "message": telegramfake.TextMessage(7, "private", user, "hi")})

	delivery, err := h.Handle(context.Background(), &queue.Update{UpdateID: 1, ChatID: 7, Payload: payload})
	if err == nil || !strings.Contains(err.Error(), "apology sent") || delivery != nil {
		t.Fatalf("Handle = %v, %v; want the panic as an error, apology sent", delivery, err)
	}
	if sent := fake.SentTo(7); len(sent) != 1 || sent[0] != tr("ru").Apology {
		t.Fatalf("sent %q, want the Russian apology", sent)
	}
}
