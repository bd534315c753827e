package present

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/internal/testing/telegramfake"
	"github.com/membot/membot/internal/testing/wait"
)

func newTestPresenter(t *testing.T) (*Presenter, *telegramfake.Server) {
	t.Helper()
	tg := telegramfake.New("1:test")
	t.Cleanup(tg.Close)
	tg.NoDrafts(true) // these tests are about the edited messages of groups and older servers
	client := telegram.NewClient(context.Background(), context.Background(), telegram.Config{Token: "1:test", APIURL: tg.URL(), Retry: telegram.SendRetry{Attempts: 1}})
	return &Presenter{Client: client, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Config: Config{EditEvery: 1}}, tg
}

// privateAnswer streams an answer in a private chat, noting its messages
// in notes; shown are those an earlier attempt showed it in.
func privateAnswer(chatID int64, notes *noteRecorder, shown []int64, firstText func()) StreamParams {
	return StreamParams{To: To{Chat: telegram.Chat{ID: chatID}}, Private: true, DraftID: 1, Shown: shown,
		Note: notes.note, FirstText: firstText, ToolStatus: func([]string) string { return "" }, StopLabel: "Stop"}
}

// noteRecorder keeps what a stream notes on its update.
type noteRecorder struct {
	mu   sync.Mutex
	last []int64
}

func (n *noteRecorder) note(ids []int64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.last = ids
}

func (n *noteRecorder) noted() []int64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.last
}

func TestAStreamThatShrinksDeletesTheMessagesItNoLongerNeeds(t *testing.T) {
	p, tg := newTestPresenter(t)
	typingStopped := 0
	s := p.Stream(context.Background(), privateAnswer(5, &noteRecorder{}, nil, func() { typingStopped++ }))

	// Words before a tool call, long enough for two messages, then withdrawn.
	s.Text(strings.Repeat("thinking aloud ", 400))
	if _, ok := tg.WaitSent(2, wait.Timeout()); !ok || len(tg.Messages(5)) != 2 {
		t.Fatal("the long text was not shown in two messages")
	}
	s.Discard()
	s.Text("The answer.")
	shown, err := s.Finish(context.Background(), "The answer.")
	if err != nil {
		t.Fatal(err)
	}
	ids, msgs := shown.IDs, tg.Messages(5)
	if len(ids) != 1 || len(msgs) != 1 || msgs[0].ID != ids[0] || msgs[0].Text != "The answer." {
		t.Fatalf("ids %v, chat %+v", ids, msgs)
	}
	if typingStopped != 1 {
		t.Errorf("typing stopped %d times, want once at the first text", typingStopped)
	}
}

func TestAnAbortedStreamLeavesNothingBehind(t *testing.T) {
	p, tg := newTestPresenter(t)
	s := p.Stream(context.Background(), privateAnswer(6, &noteRecorder{}, nil, func() {}))
	s.Text("half an ans")
	if _, ok := tg.WaitSent(1, wait.Timeout()); !ok {
		t.Fatal("the text was not shown")
	}
	s.Abort(context.Background())
	if msgs := tg.Messages(6); len(msgs) != 0 {
		t.Fatalf("left behind: %+v", msgs)
	}
}

func TestEditingToTheSameTextIsNotAnError(t *testing.T) {
	p, tg := newTestPresenter(t)
	shown, err := p.Answer(context.Background(), To{Chat: telegram.Chat{ID: 7}}, "**same**", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.editPart(context.Background(), 7, shown.IDs[0], "**same**", nil); err != nil {
		t.Fatalf("an edit that changes nothing failed: %v", err)
	}
	if err := p.editPart(context.Background(), 7, 999, "gone", nil); err == nil || !telegram.IsPermanent(err) {
		t.Fatalf("editing a missing message: %v", err)
	}
	if m := tg.Messages(7)[0]; m.Text != "same" || m.Entities[0].Type != "bold" {
		t.Fatalf("message = %+v", m)
	}
}

// Every message an answer shows in is noted on its update as it is sent,
// and a stream that takes an update over starts from those messages.
func TestAStreamNotesItsMessagesAndTakesOverWhatWasNoted(t *testing.T) {
	p, tg := newTestPresenter(t)
	notes := &noteRecorder{}
	s := p.Stream(context.Background(), privateAnswer(8, notes, nil, func() {}))
	s.Text(strings.Repeat("a long answer ", 400)) // two messages
	if _, ok := tg.WaitSent(2, wait.Timeout()); !ok {
		t.Fatal("the long text was not shown in two messages")
	}
	s.Stop()
	shown := tg.Messages(8)
	noted := notes.noted()
	if len(shown) != 2 || !slices.Equal(noted, []int64{shown[0].ID, shown[1].ID}) {
		t.Fatalf("noted %v for the messages %+v", noted, shown)
	}

	// The run died there; the next one takes over.
	next := p.Stream(context.Background(), privateAnswer(8, notes, noted, func() {}))
	answer, err := next.Finish(context.Background(), "The answer, after all.")
	if err != nil {
		t.Fatal(err)
	}
	ids, msgs := answer.IDs, tg.Messages(8)
	if len(msgs) != 1 || msgs[0].ID != noted[0] || msgs[0].Text != "The answer, after all." || !slices.Equal(ids, noted[:1]) {
		t.Fatalf("after the takeover the chat shows %+v (ids %v); want the first message edited, the second deleted", msgs, ids)
	}
}

// An answer sent whole notes each message on its update as it is sent,
// before the next: a run that dies between two parts, or after the last
// before the delivery is recorded, leaves them known, and the run that
// takes the update over finishes them in place, sending nothing again.
func TestAnAnswerNotesEachPartAsItIsSentAndATakeoverSendsNoneAgain(t *testing.T) {
	p, tg := newTestPresenter(t)
	var noted [][]int64
	answer := strings.Repeat("a long answer ", 700) // three messages
	shown, err := p.Answer(context.Background(), To{Chat: telegram.Chat{ID: 9}}, answer, func(ids []int64) {
		if sent := len(tg.Calls("sendMessage")); sent != len(ids) {
			t.Errorf("noted %v after %d messages were sent; want each noted before the next is sent", ids, sent)
		}
		noted = append(noted, ids)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(shown.IDs) != 3 || len(noted) != 3 || !slices.Equal(noted[2], shown.IDs) {
		t.Fatalf("sent %v, noted %v; want three messages, noted as each was sent", shown.IDs, noted)
	}

	// The run died before recording the delivery; the next finishes it.
	notes := &noteRecorder{}
	next := p.Stream(context.Background(), privateAnswer(9, notes, shown.IDs, func() {}))
	again, err := next.Finish(context.Background(), answer)
	if err != nil {
		t.Fatal(err)
	}
	if len(tg.Calls("sendMessage")) != 3 || len(tg.Messages(9)) != 3 || !slices.Equal(again.IDs, shown.IDs) {
		t.Fatalf("after the takeover: %d messages sent, the chat shows %d, ids %v; want the same three, none sent again",
			len(tg.Calls("sendMessage")), len(tg.Messages(9)), again.IDs)
	}
}
