package bot

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/membot/membot/internal/telegramfake"
)

func newTestHandler(t *testing.T) (*Handler, *telegramfake.Server) {
	t.Helper()
	tg := telegramfake.New("1:test")
	t.Cleanup(tg.Close)
	client := NewClient(context.Background(), context.Background(), ClientConfig{Token: "1:test", APIURL: tg.URL(), Retry: SendRetry{Attempts: 1}})
	return &Handler{Client: client, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), EditEvery: 1}, tg
}

func privateMessage(chatID int64) *incoming {
	return &incoming{msg: &tgbotapi.Message{MessageID: 1, Chat: &tgbotapi.Chat{ID: chatID, Type: "private"}}}
}

func TestAStreamThatShrinksDeletesTheMessagesItNoLongerNeeds(t *testing.T) {
	h, tg := newTestHandler(t)
	typingStopped := 0
	s := h.newStreamer(context.Background(), privateMessage(5), func() { typingStopped++ })

	// Words before a tool call, long enough for two messages, then withdrawn.
	s.Text(strings.Repeat("thinking aloud ", 400))
	if _, ok := tg.WaitSent(2, 5*time.Second); !ok || len(tg.Messages(5)) != 2 {
		t.Fatal("the long text was not shown in two messages")
	}
	s.Discard()
	s.Text("The answer.")
	ids, err := s.finish(context.Background(), "The answer.")
	if err != nil {
		t.Fatal(err)
	}
	msgs := tg.Messages(5)
	if len(ids) != 1 || len(msgs) != 1 || msgs[0].ID != ids[0] || msgs[0].Text != "The answer." {
		t.Fatalf("ids %v, chat %+v", ids, msgs)
	}
	if typingStopped != 1 {
		t.Errorf("typing stopped %d times, want once at the first text", typingStopped)
	}
}

func TestAnAbortedStreamLeavesNothingBehind(t *testing.T) {
	h, tg := newTestHandler(t)
	s := h.newStreamer(context.Background(), privateMessage(6), func() {})
	s.Text("half an ans")
	if _, ok := tg.WaitSent(1, 5*time.Second); !ok {
		t.Fatal("the text was not shown")
	}
	s.abort(context.Background())
	if msgs := tg.Messages(6); len(msgs) != 0 {
		t.Fatalf("left behind: %+v", msgs)
	}
}

func TestEditingToTheSameTextIsNotAnError(t *testing.T) {
	h, tg := newTestHandler(t)
	ids, err := h.Client.SendText(context.Background(), 7, 0, "**same**", SendOptions{Markdown: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Client.EditText(context.Background(), 7, ids[0], "**same**", SendOptions{Markdown: true}); err != nil {
		t.Fatalf("an edit that changes nothing failed: %v", err)
	}
	if err := h.Client.EditText(context.Background(), 7, 999, "gone", SendOptions{Markdown: true}); err == nil || !IsPermanent(err) {
		t.Fatalf("editing a missing message: %v", err)
	}
	if m := tg.Messages(7)[0]; m.Text != "same" || m.Entities[0].Type != "bold" {
		t.Fatalf("message = %+v", m)
	}
}
