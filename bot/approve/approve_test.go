package approve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/internal/testing/calltest"
	"github.com/membot/membot/internal/testing/telegramfake"
	"github.com/membot/membot/memory"
)

// describer describes calls as "name(arguments)"; arguments "bad" cannot
// be shown. Its one MCP tool is "files_read", server "files"' "read".
type describer struct{}

func (describer) DescribeCall(name, arguments string) (string, error) {
	if arguments == "bad" {
		return "", errors.New("arguments do not decode")
	}
	return name + "(" + arguments + ")", nil
}

// CannotRun: every call can run, but the one whose tool is "gone", the
// one of "broken" (its arguments cannot be read) and the one of "odd"
// (for a reason of no known kind).
func (describer) CannotRun(_ context.Context, ap memory.Approval) error {
	switch ap.Subject {
	case "gone":
		return fmt.Errorf("unknown tool %q: %w", ap.Subject, agent.ErrToolNotOffered)
	case "broken":
		return fmt.Errorf("%w: the key \"to\" comes twice", agent.ErrBadArguments)
	case "odd":
		return errors.New("odd: internal state 0x2a")
	}
	return nil
}

func (describer) Tools() []agent.Tool {
	return []agent.Tool{{Name: "fetch_url"}, {Name: "files_read", Server: "files", ServerTool: "read"}}
}

// store records where each approval's buttons are.
type store struct {
	mu  sync.Mutex
	set map[int64]int64
	err error
}

func (s *store) SetApprovalMessage(_ context.Context, id, messageID int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	s.set[id] = messageID
	return nil
}

const chatID = 77

// setup is Prompts over a fake Telegram, with times shown as "HH:MM".
func setup(t *testing.T) (*Prompts, *telegramfake.Server, *store) {
	t.Helper()
	tg := telegramfake.New("1:test")
	t.Cleanup(tg.Close)
	client := telegram.NewClient(context.Background(), context.Background(),
		telegram.Config{Token: "1:test", APIURL: tg.URL(), Retry: telegram.SendRetry{Attempts: 1}})
	st := &store{set: map[int64]int64{}}
	return &Prompts{Client: client, Agent: describer{}, Store: st, Clock: func(t time.Time) string { return t.UTC().Format("15:04") },
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}, tg, st
}

func approval(id int64, subject, details string) memory.Approval {
	return memory.Approval{ID: id, Subject: subject, Details: details, ChatID: chatID, UserID: 5, ConversationID: "c",
		AssistantMessageID: 9, Status: memory.ApprovalPending, CreatedAt: time.Date(2030, 1, 1, 10, 30, 0, 0, time.UTC)}
}

func TestAskSendsEachApprovalWithItsButtonsOnce(t *testing.T) {
	t.Parallel()
	p, tg, st := setup(t)
	en := texts.For("en")
	asked := approval(1, "fetch_url", `{"url":"x"}`)
	asked.TelegramMessageID = 555 // sent by an earlier attempt
	list := []memory.Approval{asked, approval(2, "fetch_url", `{"url":"y"}`), approval(3, "files_read", `{}`), approval(4, "fetch_url", "bad")}
	if err := p.Ask(context.Background(), telegram.Chat{ID: chatID}, 40, "en", list, nil); err != nil {
		t.Fatal(err)
	}
	msgs := tg.Messages(chatID)
	want := []struct{ text, markup string }{
		{en.ApprovalAsk("fetch_url", `fetch_url({"url":"y"})`), `"callback_data":"approve:2"`},
		{en.ApprovalAsk("files_read", en.ToolOrigin("files", "read")+"\nfiles_read({})"), `"callback_data":"approve:3"`},
		{en.ApprovalUnreadable("fetch_url", "the arguments are not valid JSON: invalid character 'b' looking for beginning of value"), `"callback_data":"reject:4"`},
	}
	if len(msgs) != len(want) {
		t.Fatalf("%d messages sent, want %d: %+v", len(msgs), len(want), msgs)
	}
	for i, w := range want {
		if msgs[i].Text != w.text || !strings.Contains(msgs[i].ReplyMarkup, w.markup) || msgs[i].ReplyTo != 40 {
			t.Errorf("message %d = %q %s (reply to %d); want %q with %s", i, msgs[i].Text, msgs[i].ReplyMarkup, msgs[i].ReplyTo, w.text, w.markup)
		}
	}
	if strings.Contains(msgs[2].ReplyMarkup, "approve:") {
		t.Errorf("a call that cannot be shown can be approved: %s", msgs[2].ReplyMarkup)
	}
	if len(st.set) != 3 || st.set[2] != msgs[0].ID || st.set[3] != msgs[1].ID || st.set[4] != msgs[2].ID {
		t.Errorf("stored messages %v, want 2, 3, 4 at %d, %d, %d", st.set, msgs[0].ID, msgs[1].ID, msgs[2].ID)
	}
}

func TestAskStopsAtAFailure(t *testing.T) {
	t.Parallel()
	p, tg, st := setup(t)
	st.err = errors.New("database away")
	if err := p.Ask(context.Background(), telegram.Chat{ID: chatID}, 0, "en", []memory.Approval{approval(1, "fetch_url", "{}"), approval(2, "fetch_url", "{}")}, nil); !errors.Is(err, st.err) {
		t.Fatalf("Ask: %v, want the store's error", err)
	}
	if n := len(tg.Messages(chatID)); n != 1 {
		t.Errorf("%d prompts sent after the store failed, want 1", n)
	}
	st.err = nil
	tg.Inject(telegramfake.Fault{Method: "sendMessage", Status: 400, Message: "Bad Request: chat not found", Times: 1})
	if err := p.Ask(context.Background(), telegram.Chat{ID: chatID}, 0, "en", []memory.Approval{approval(3, "fetch_url", "{}")}, nil); err == nil || len(st.set) != 0 {
		t.Errorf("Ask with Telegram refusing: %v, stored %v; want the error, nothing stored", err, st.set)
	}
}

func TestDecision(t *testing.T) {
	t.Parallel()
	ap := approval(1, "fetch_url", "{}")
	gone := ap
	gone.AssistantMessageID = 0
	noConversation := ap
	noConversation.ConversationID = ""
	cases := []struct {
		name           string
		ap             memory.Approval
		status         string
		presser        int64
		status2, cause string
	}{
		{"the asker approves", ap, memory.ApprovalApproved, 5, memory.ApprovalApproved, "approved by the user"},
		{"the asker rejects", ap, memory.ApprovalRejected, 5, memory.ApprovalRejected, "rejected by the user"},
		{"an admin approves", ap, memory.ApprovalApproved, 9, memory.ApprovalApproved, "approved by an admin"},
		{"its row is gone", gone, memory.ApprovalApproved, 5, memory.ApprovalCancelled, "the conversation no longer holds the request"},
		{"its conversation is gone", noConversation, memory.ApprovalRejected, 9, memory.ApprovalCancelled, "the conversation no longer holds the request"},
	}
	for _, c := range cases {
		d := Decision(&c.ap, c.status, c.presser, 321)
		if d.ApprovalID != 1 || d.Status != c.status2 || d.Reason != c.cause || d.DecidedBy != c.presser || d.UpdateID != 321 {
			t.Errorf("%s: %+v; want %s, %q", c.name, d, c.status2, c.cause)
		}
	}
}

func TestCloseRewritesTheMessageWithTheOutcome(t *testing.T) {
	t.Parallel()
	en := texts.For("en")
	decided := time.Date(2030, 1, 1, 11, 45, 0, 0, time.UTC)
	cases := []struct {
		status, outcome string
	}{
		{memory.ApprovalApproved, en.OutcomeApproved("11:45")},
		{memory.ApprovalRejected, en.OutcomeRejected("11:45")},
		{memory.ApprovalCancelled, en.OutcomeCancelled},
	}
	for _, c := range cases {
		p, tg, _ := setup(t)
		ap := approval(1, "fetch_url", `{"url":"x"}`)
		if err := p.Ask(context.Background(), telegram.Chat{ID: chatID}, 0, "en", []memory.Approval{ap}, nil); err != nil {
			t.Fatal(err)
		}
		ap.TelegramMessageID, ap.Status, ap.DecisionAt = tg.Messages(chatID)[0].ID, c.status, &decided
		p.Close(context.Background(), "en", &ap)
		m := tg.Messages(chatID)[0]
		if want := en.ApprovalClosed("fetch_url", `fetch_url({"url":"x"})`, c.outcome); m.Text != want || strings.Contains(m.ReplyMarkup, "callback_data") {
			t.Errorf("%s: the message reads %q with %s; want %q without buttons", c.status, m.Text, m.ReplyMarkup, want)
		}
	}
}

// An approved call that cannot run is closed with why in the user's
// words, in their language; the error behind it goes to the log only.
func TestCloseSaysInWordsWhyAnApprovedCallDoesNotRun(t *testing.T) {
	t.Parallel()
	for _, lang := range []string{"en", "ru"} {
		tx := texts.For(lang)
		for tool, why := range map[string]string{
			"gone":   tx.ToolNotOffered("gone"),
			"broken": tx.ArgumentsBroken,
			"odd":    tx.CannotRunNow,
		} {
			p, tg, _ := setup(t)
			var logs bytes.Buffer
			p.Log = slog.New(slog.NewTextHandler(&logs, nil))
			ap := approval(1, tool, `{"to":"a"}`)
			if err := p.Ask(context.Background(), telegram.Chat{ID: chatID}, 0, lang, []memory.Approval{ap}, nil); err != nil {
				t.Fatal(err)
			}
			ap.TelegramMessageID, ap.Status = tg.Messages(chatID)[0].ID, memory.ApprovalApproved
			p.Close(context.Background(), lang, &ap)
			m := tg.Messages(chatID)[0]
			if want := tx.ApprovalClosed(tool, tool+`({"to":"a"})`, tx.OutcomeNotRun(why)); m.Text != want {
				t.Errorf("%s, %s: the message reads %q; want %q", lang, tool, m.Text, want)
			}
			if strings.Contains(m.Text, "comes twice") || strings.Contains(m.Text, "0x2a") || strings.Contains(m.Text, "unknown tool") {
				t.Errorf("%s, %s: the user was shown the error: %q", lang, tool, m.Text)
			}
			if !strings.Contains(logs.String(), "approved call cannot run") {
				t.Errorf("%s, %s: the log has no line of it: %s", lang, tool, logs.String())
			}
		}
	}
}

func TestCloseLeavesAPendingOrUnsentApprovalAndTakesButtonsOffWhenTheEditFails(t *testing.T) {
	t.Parallel()
	p, tg, _ := setup(t)
	ap := approval(1, "fetch_url", "{}")
	p.Close(context.Background(), "en", &ap) // never sent: nothing to rewrite
	if n := len(tg.Calls("")); n != 0 {
		t.Fatalf("closing an unsent approval made %d calls", n)
	}
	if err := p.Ask(context.Background(), telegram.Chat{ID: chatID}, 0, "en", []memory.Approval{ap}, nil); err != nil {
		t.Fatal(err)
	}
	sent := tg.Messages(chatID)[0]
	ap.TelegramMessageID = sent.ID
	p.Close(context.Background(), "en", &ap) // still pending
	if m := tg.Messages(chatID)[0]; m.Edits != 0 || m.ReplyMarkup != sent.ReplyMarkup {
		t.Fatalf("a pending approval's message was changed: %+v", m)
	}
	ap.Status = memory.ApprovalApproved
	tg.Inject(telegramfake.Fault{Method: "editMessageText", Status: 400, Message: "Bad Request: message can't be edited", Times: 1})
	p.Close(context.Background(), "en", &ap)
	if m := tg.Messages(chatID)[0]; m.Text != sent.Text || strings.Contains(m.ReplyMarkup, "callback_data") {
		t.Errorf("after a failed edit the message is %q with %s; want the same text without buttons", m.Text, m.ReplyMarkup)
	}
}

// pending is a chat's pending approvals.
type pending []memory.Approval

func (p pending) ChatApprovals(context.Context, memory.Chat) ([]memory.Approval, error) {
	return p, nil
}

func TestApprovalsListsThePendingOnesNumbered(t *testing.T) {
	t.Parallel()
	p, _, _ := setup(t)
	var list pending
	for i := range MaxListed + 5 {
		list = append(list, approval(int64(100+i), "fetch_url", "{}"))
	}
	r := &calltest.Recorder{}
	if err := (Commands{Store: list, Prompts: p}).Approvals(context.Background(), r.Call("")); err != nil {
		t.Fatal(err)
	}
	if len(r.Replies) != 1 {
		t.Fatalf("replies = %q, want the list", r.Texts())
	}
	m, en := r.Replies[0], texts.For("en")
	if !strings.HasPrefix(m.Text, en.ApprovalsList+"\n\n1. fetch_url\nfetch_url({})\n(10:30)\n\n2. fetch_url") {
		t.Errorf("the list reads %q", m.Text)
	}
	if !strings.Contains(m.Text, "\n\n20. fetch_url") || strings.Contains(m.Text, "\n\n21. ") || len(m.Buttons) != MaxListed {
		t.Errorf("the list does not stop at %d approvals", MaxListed)
	}
	first, last := m.Buttons[0][0], m.Buttons[MaxListed-1][1]
	if first != (telegram.Button{Text: "✅ 1", Data: "approve:100"}) || last != (telegram.Button{Text: "❌ 20", Data: "reject:119"}) {
		t.Errorf("buttons %+v … %+v", first, last)
	}
}

func TestAGroupsMemberSeesTheirOwnApprovals(t *testing.T) {
	t.Parallel()
	p, _, _ := setup(t)
	mine, theirs := approval(1, "fetch_url", "{}"), approval(2, "fetch_url", "{}")
	theirs.UserID = 6
	cases := []struct {
		name string
		own  int64
		list pending
		rows int
		want string
	}{
		{"an admin sees all", 0, pending{mine, theirs}, 2, ""},
		{"a member their own", 5, pending{mine, theirs}, 1, ""},
		{"a member with none of their own", 6, pending{mine}, 0, texts.For("en").ApprovalsNone},
		{"none", 0, nil, 0, texts.For("en").ApprovalsNone},
	}
	for _, c := range cases {
		r := &calltest.Recorder{Own: c.own}
		if err := (Commands{Store: c.list, Prompts: p}).Approvals(context.Background(), calltest.InGroup(r.Call(""))); err != nil {
			t.Fatal(err)
		}
		if len(r.Replies) != 1 || len(r.Replies[0].Buttons) != c.rows || c.want != "" && r.Last() != c.want {
			t.Errorf("%s: replies %+v, want %d rows %q", c.name, r.Replies, c.rows, c.want)
		}
	}
}

func TestLabelBoundsAName(t *testing.T) {
	t.Parallel()
	if got := Label(strings.Repeat("n", 100)); len([]rune(got)) > 64 || got == "" {
		t.Errorf("Label of 100 runes = %q (%d runes), want at most 64", got, len([]rune(got)))
	}
}
