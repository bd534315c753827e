package bot_test

import (
	"fmt"
	"net/http"

	"github.com/membot/membot/internal/testing/wait"

	"strings"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/telegramfake"
)

func TestAPrivateStreamShowsGrowingDraftsAndEndsAsOneSentMessage(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["STREAM_DRAFT_INTERVAL"] = "50ms"
	answer := strings.Repeat("A drafted answer grows while the model writes it. ", 8)
	release := make(chan struct{})
	h.LLM.Script(openaifake.Reply{Content: answer, Hold: release, HoldAfter: 6, ChunkDelay: 5 * time.Millisecond})
	h.Start()

	update := h.TG.SendText(jane, "tell me something")
	if _, ok := h.TG.WaitDrafts(jane.ID, wait.Timeout(), func(d []telegramfake.Draft) bool {
		return len(d) > 0 && d[len(d)-1].Text != ""
	}); !ok {
		t.Fatal("no draft with text while the answer was being written")
	}
	if n := len(h.TG.Sent()); n != 0 {
		t.Fatalf("%d messages sent before the answer was complete", n)
	}
	close(release)
	h.WaitDone(update)

	drafts := h.TG.Drafts(jane.ID)
	if drafts[0].Text != "" || !drafts[0].CanStop || drafts[0].DraftID == 0 {
		t.Errorf("the first draft is %+v, want the empty placeholder with a Stop button", drafts[0])
	}
	for i := 1; i < len(drafts); i++ {
		if !strings.HasPrefix(drafts[i].Text, drafts[i-1].Text) || drafts[i].DraftID != drafts[0].DraftID {
			t.Errorf("draft %d (%q) does not grow from draft %d (%q)", i, drafts[i].Text, i-1, drafts[i-1].Text)
		}
	}
	msgs := h.TG.Messages(jane.ID)
	stored, telegramID, _ := storedAnswer(h, jane.ID)
	if len(msgs) != 1 || msgs[0].Edits != 0 || msgs[0].Text != strings.TrimSpace(stored) || stored != answer || telegramID != msgs[0].ID {
		t.Fatalf("the chat holds %+v, want one message, never edited, equal to the stored %q", msgs, stored)
	}
	if n := len(h.TG.Calls("editMessageText")) + len(h.TG.Calls("deleteMessage")); n != 0 {
		t.Errorf("%d edits or deletions in a private chat", n)
	}
	if d, shown := h.TG.ShownDraft(jane.ID, 0); shown {
		t.Errorf("the draft %q still shows after the answer was sent", d.Text)
	}
}

func TestAToolRoundShowsInTheDraft(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["STREAM_DRAFT_INTERVAL"] = "20ms"
	// The answer after the tool takes a while: the draft says what runs meanwhile.
	h.LLM.Script(openaifake.Reply{ToolCalls: []openai.ToolCall{openaifake.ToolCall("call_d", "calculator", `{"expression":"6*7"}`)}},
		openaifake.Reply{Content: "It is 42.", Delay: 500 * time.Millisecond})
	h.Start()
	if got := h.Say(jane, "what is 6*7?"); got != "It is 42." {
		t.Fatalf("reply = %q", got)
	}
	found := false
	for _, d := range h.TG.Drafts(jane.ID) {
		found = found || d.Text == "🧮 Calculating…"
	}
	if !found {
		t.Errorf("no draft said the tool was running: %+v", h.TG.Drafts(jane.ID))
	}
}

func TestAServerWithoutDraftsGetsEditedMessagesForTheRestOfTheRun(t *testing.T) {
	t.Parallel()
	// Servers that do not know sendMessageDraft answer 404, or 400 with
	// "method not found": either is learned at the first answer.
	for name, refuse := range map[string]func(*telegramfake.Server){
		"404": func(tg *telegramfake.Server) { tg.NoDrafts(true) },
		"400 method not found": func(tg *telegramfake.Server) {
			tg.Inject(telegramfake.Fault{Method: "sendMessageDraft", Status: http.StatusBadRequest,
				Message: "Bad Request: method not found", Times: 1000})
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			refuse(h.TG)
			h.Env["STREAM_EDIT_INTERVAL"] = "50ms"
			answer := strings.Repeat("An edited answer. ", 10)
			h.LLM.Script(openaifake.Reply{Content: answer, ChunkDelay: 10 * time.Millisecond}, openaifake.Reply{Content: answer})
			h.Start()
			for range 2 {
				msgs := h.SayAll(jane, "hello")
				if len(msgs) != 1 || msgs[0].Text != strings.TrimSpace(answer) {
					t.Fatalf("the answer shows as %+v", msgs)
				}
			}
			if n := len(h.TG.Calls("sendMessageDraft")); n != 1 {
				t.Errorf("sendMessageDraft was tried %d times, want once", n)
			}
			if n := len(h.TG.Calls("editMessageText")); n == 0 {
				t.Error("the answer was not streamed by editing")
			}
			if n := strings.Count(h.Logs.String(), "does not know sendMessageDraft"); n != 1 {
				t.Errorf("the fallback was logged %d times, want once", n)
			}
		})
	}
}

// stopTurn scripts an answer that stops after its first pieces until the
// client goes away, and returns the channel closed when it does.
func stopTurn(h *harness) (gone chan struct{}, partial string) {
	gone = make(chan struct{})
	answer := "First words of an answer that is never finished."
	h.LLM.Script(openaifake.Reply{Content: answer, Chunks: []string{"First words ", "of an answer ", "that is never finished."},
		Hold: make(chan struct{}), HoldAfter: 3, Gone: gone}) // the role and two pieces
	return gone, "First words of an answer "
}

// closedWithin reports whether the model's request was closed within the
// tests' patience.
func closedWithin(gone chan struct{}) bool {
	select {
	case <-gone:
		return true
	case <-time.After(wait.Timeout()):
		return false
	}
}

// storedStopped reports whether the chat's last answer is marked stopped.
func storedStopped(h *harness, chatID int64) bool {
	return h.Count(`SELECT count(*) FROM messages m JOIN conversations c ON c.id = m.conversation_id
		WHERE c.chat_id = $1 AND m.role = 'assistant' AND (m.metadata->>'stopped')::boolean`, chatID) == 1
}

func TestStopOnADraftEndsTheModelCallAndKeepsWhatWasWritten(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["STOP_CHECK_INTERVAL"] = "100ms"
	gone, partial := stopTurn(h)
	h.Start()

	update := h.TG.SendText(jane, "write me a long story")
	if _, ok := h.TG.WaitDrafts(jane.ID, wait.Timeout(), func(d []telegramfake.Draft) bool {
		return len(d) > 0 && d[len(d)-1].Text == strings.TrimSpace(partial)
	}); !ok {
		t.Fatalf("the draft never showed the first words: %+v", h.TG.Drafts(jane.ID))
	}
	stop := h.TG.PressStop(jane.ID, 0)
	if stop == 0 {
		t.Fatal("the draft has no Stop button")
	}
	if !closedWithin(gone) {
		t.Fatal("the model's request was not closed within 2 s of the Stop")
	}
	h.WaitDone(update)
	h.WaitDone(stop)

	stored, telegramID, _ := storedAnswer(h, jane.ID)
	msgs := h.TG.Messages(jane.ID)
	if stored != partial || len(msgs) != 1 || msgs[0].Text != strings.TrimSpace(partial) || telegramID != msgs[0].ID {
		t.Fatalf("stored %q, the chat shows %+v; want the words written before the Stop", stored, msgs)
	}
	if !storedStopped(h, jane.ID) {
		t.Error("the stored answer is not marked stopped")
	}
	if got := h.Say(jane, "and now?"); !strings.Contains(got, "and now?") {
		t.Errorf("the next message was answered with %q", got)
	}
}

// mallory is in the group but not on the allowlist of the tests below;
// olga is on it, and an admin of the group.
var (
	mallory = telegramfake.User{ID: 666, FirstName: "Mallory", LanguageCode: "en"}
	olga    = telegramfake.User{ID: 503, FirstName: "Olga", LanguageCode: "en"}
)

// stoppableGroup starts a bot that lets in jane, ivan and olga only, with jane's
// answer in a group held after its first words; it returns the model
// request's end and the words written.
func stoppableGroup(t *testing.T, group int64) (h *harness, gone chan struct{}, partial string, update int64) {
	h = newHarness(t)
	h.Env["STOP_CHECK_INTERVAL"] = "100ms"
	h.Env["ALLOWED_USER_IDS"] = "501,502,503"
	gone, partial = stopTurn(h)
	h.Start()
	update = h.TG.SendMessage(group, "group", jane, "@"+h.TG.Username+" write me a long story")
	if _, ok := h.TG.WaitFor(wait.Timeout(), func(sent []telegramfake.Sent) bool {
		return len(sent) > 0 && sent[len(sent)-1].Text == strings.TrimSpace(partial)
	}); !ok {
		t.Fatalf("the first words were never shown: %+v", h.TG.Messages(group))
	}
	return h, gone, partial, update
}

// ignoredStop waits until the running answer has looked at a request to
// stop it from user and let it be, and fails when the answer was stopped.
func ignoredStop(t *testing.T, h *harness, gone chan struct{}, user int64) {
	t.Helper()
	h.WaitLog(fmt.Sprintf(`request to stop the answer is ignored.* user_id=%d`, user))
	select {
	case <-gone:
		t.Fatalf("user %d stopped someone else's answer", user)
	default:
	}
}

// In a group, /stop from someone not let in, or from a member who did not
// ask, does nothing to the answer being written; the asker's /stop ends it.
func TestSlashStopInAGroupStopsOnlyTheAskersAnswer(t *testing.T) {
	t.Parallel()
	const group = -100514
	h, gone, partial, update := stoppableGroup(t, group)
	h.TG.SendMessage(group, "group", mallory, "/stop")
	ignoredStop(t, h, gone, mallory.ID)
	h.TG.SendMessage(group, "group", ivan, "/stop")
	ignoredStop(t, h, gone, ivan.ID)

	stop := h.TG.SendMessage(group, "group", jane, "/stop")
	if !closedWithin(gone) {
		t.Fatal("the model's request was not closed within 2 s of the asker's /stop")
	}
	h.WaitDone(update)
	h.WaitDone(stop)
	h.WaitIdle()
	stored, _, _ := storedAnswer(h, group)
	msgs := h.TG.Messages(group)
	if stored != partial || len(msgs) == 0 || msgs[0].Text != strings.TrimSpace(partial) || !storedStopped(h, group) {
		t.Fatalf("stored %q, the group shows %+v; want the words written before /stop, marked stopped", stored, msgs)
	}
	for _, m := range msgs[1:] { // Mallory is told, at most, that the bot is not for them
		if !strings.Contains(m.Text, "666") {
			t.Errorf("the group was also sent %q", m.Text)
		}
	}
}

// The Stop button of a group's answer: pressed by someone not let in, or
// by a member who did not ask, it does nothing; pressed by an admin of the
// group, it stops the answer.
func TestTheStopButtonOfAGroupAnswerStopsItForTheAskerOrAnAdmin(t *testing.T) {
	t.Parallel()
	const group = -100516
	h, gone, partial, update := stoppableGroup(t, group)
	msgs := h.TG.Messages(group)
	if len(msgs) != 1 || len(msgs[0].Buttons()) != 1 {
		t.Fatalf("the group shows %+v; want the answer being written, with a Stop button", msgs)
	}
	h.TG.Press(mallory, msgs[0], msgs[0].Buttons()[0].Data)
	ignoredStop(t, h, gone, mallory.ID)
	h.TG.Press(ivan, msgs[0], msgs[0].Buttons()[0].Data)
	ignoredStop(t, h, gone, ivan.ID)

	h.TG.SetMember(group, olga.ID, "administrator")
	h.TG.Press(olga, msgs[0], msgs[0].Buttons()[0].Data)
	if !closedWithin(gone) {
		t.Fatal("the model's request was not closed within 2 s of the admin's press")
	}
	h.WaitDone(update)
	h.WaitIdle()
	msgs = h.TG.Messages(group)
	if stored, _, _ := storedAnswer(h, group); len(msgs) != 1 || msgs[0].Text != strings.TrimSpace(stored) || stored != partial ||
		len(msgs[0].Buttons()) != 0 || !storedStopped(h, group) {
		t.Fatalf("the group shows %+v, stored %q; want the words written before the press, without the button, marked stopped", msgs, stored)
	}
}
