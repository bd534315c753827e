package bot

import (
	"github.com/membot/membot/internal/testing/wait"

	"context"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/internal/testing/telegramfake"
	"github.com/membot/membot/memory"
)

func newTestHandler(t *testing.T) (*Handler, *telegramfake.Server) {
	t.Helper()
	tg := telegramfake.New("1:test")
	t.Cleanup(tg.Close)
	tg.NoDrafts(true) // these tests are about the edited messages of groups and older servers
	client := telegram.NewClient(context.Background(), context.Background(), telegram.Config{Token: "1:test", APIURL: tg.URL(), Retry: telegram.SendRetry{Attempts: 1}})
	return &Handler{Client: client, Memory: &noteRecorder{}, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Config: Config{EditEvery: 1}}, tg
}

func privateMessage(chatID int64) *incoming {
	return &incoming{update: &memory.InboxUpdate{UpdateID: 1, ChatID: chatID},
		msg: &tgbotapi.Message{MessageID: 1, Chat: &tgbotapi.Chat{ID: chatID, Type: "private"}}}
}

// noteRecorder keeps what a streamer notes on its update; the streamer uses
// nothing else of Memory.
type noteRecorder struct {
	Memory
	mu   sync.Mutex
	last []int64
}

func (n *noteRecorder) NoteShown(_ context.Context, _ int64, ids []int64) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.last = ids
	return nil
}

func (n *noteRecorder) noted() []int64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.last
}

func TestAStreamThatShrinksDeletesTheMessagesItNoLongerNeeds(t *testing.T) {
	h, tg := newTestHandler(t)
	typingStopped := 0
	s := h.newStreamer(context.Background(), privateMessage(5), func() { typingStopped++ })

	// Words before a tool call, long enough for two messages, then withdrawn.
	s.Text(strings.Repeat("thinking aloud ", 400))
	if _, ok := tg.WaitSent(2, wait.Timeout()); !ok || len(tg.Messages(5)) != 2 {
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
	if _, ok := tg.WaitSent(1, wait.Timeout()); !ok {
		t.Fatal("the text was not shown")
	}
	s.abort(context.Background())
	if msgs := tg.Messages(6); len(msgs) != 0 {
		t.Fatalf("left behind: %+v", msgs)
	}
}

func TestEditingToTheSameTextIsNotAnError(t *testing.T) {
	h, tg := newTestHandler(t)
	ids, err := h.Client.SendText(context.Background(), telegram.Chat{ID: 7}, 0, "**same**", telegram.SendOptions{Markdown: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Client.EditText(context.Background(), 7, ids[0], "**same**", telegram.SendOptions{Markdown: true}); err != nil {
		t.Fatalf("an edit that changes nothing failed: %v", err)
	}
	if err := h.Client.EditText(context.Background(), 7, 999, "gone", telegram.SendOptions{Markdown: true}); err == nil || !telegram.IsPermanent(err) {
		t.Fatalf("editing a missing message: %v", err)
	}
	if m := tg.Messages(7)[0]; m.Text != "same" || m.Entities[0].Type != "bold" {
		t.Fatalf("message = %+v", m)
	}
}

// Every message an answer shows in is noted on its update as it is sent,
// and a streamer that takes an update over starts from those messages.
func TestAStreamNotesItsMessagesAndTakesOverWhatWasNoted(t *testing.T) {
	h, tg := newTestHandler(t)
	s := h.newStreamer(context.Background(), privateMessage(8), func() {})
	s.Text(strings.Repeat("a long answer ", 400)) // two messages
	if _, ok := tg.WaitSent(2, wait.Timeout()); !ok {
		t.Fatal("the long text was not shown in two messages")
	}
	s.stop()
	shown := tg.Messages(8)
	noted := h.Memory.(*noteRecorder).noted()
	if len(shown) != 2 || !slices.Equal(noted, []int64{shown[0].ID, shown[1].ID}) {
		t.Fatalf("noted %v for the messages %+v", noted, shown)
	}

	// The run died there; the next one takes over.
	in := privateMessage(8)
	in.update.Shown = noted
	next := h.newStreamer(context.Background(), in, func() {})
	ids, err := next.finish(context.Background(), "The answer, after all.")
	if err != nil {
		t.Fatal(err)
	}
	msgs := tg.Messages(8)
	if len(msgs) != 1 || msgs[0].ID != noted[0] || msgs[0].Text != "The answer, after all." || !slices.Equal(ids, noted[:1]) {
		t.Fatalf("after the takeover the chat shows %+v (ids %v); want the first message edited, the second deleted", msgs, ids)
	}
}
