package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"testing"

	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/agent"
	chat "github.com/membot/membot/agent/llm"
	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/memory"
)

// A call that asks first is parsed once, as the model wrote it: the
// bytes its tool describes for the person, the bytes stored with the
// approval and the bytes the tool runs after the press are one canonical
// form, and the tool is asked to describe it once.
func TestTheBytesAskedAboutAreTheBytesRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := openStore(t)
	llm := openaifake.New()
	defer llm.Close()
	var described, ran []string
	send := agent.Tool{Name: "send",
		Describe: func(raw json.RawMessage) (string, error) {
			described = append(described, string(raw))
			return "send it", nil
		},
		Run: func(_ context.Context, _ *agent.TurnInfo, raw json.RawMessage) (string, error) {
			ran = append(ran, string(raw))
			return "sent", nil
		}}
	a := agent.New(agent.Config{Model: "m", HistoryLimit: 30, NeedsApproval: map[string]bool{"send": true}},
		agent.Parts{Store: store, LLM: &chat.Client{BaseURL: llm.URL()}, Tools: agent.NewRegistry(send),
			Log: slog.New(slog.NewTextHandler(io.Discard, nil))})

	const written = " {\"to\" : \"\\u0041nna\", \"n\": [1.50, -0]}\n"
	const canonical = `{"to":"Anna","n":[1.50,-0]}`
	llm.Script(openaifake.Reply{ToolCalls: []openai.ToolCall{openaifake.ToolCall("c1", "send", written)}}, openaifake.Reply{Content: "Done."})
	user := memory.User{TelegramUserID: 3, LanguageCode: "en"}
	r, err := a.Reply(ctx, agent.Request{User: user, Chat: memory.Chat{ID: 3}, UpdateID: 1, Text: "send it"})
	if err != nil || r.Outcome != agent.Paused || len(r.Approvals) != 1 {
		t.Fatalf("reply = %+v, %v; want it paused for one approval", r, err)
	}
	if r.Approvals[0].Details != canonical || len(described) != 1 || described[0] != canonical {
		t.Fatalf("stored %q, described %q; want %q once", r.Approvals[0].Details, described, canonical)
	}
	ap, _, err := store.Approvals().Decide(ctx, memory.Decision{ApprovalID: r.Approvals[0].ID, Status: memory.ApprovalApproved, DecidedBy: 3, UpdateID: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.CannotRun(ctx, *ap); err != nil {
		t.Fatalf("CannotRun = %v", err)
	}
	r, err = a.Resume(ctx, agent.ResumeRequest{Approval: ap, UpdateID: 2, Lang: "en"})
	if err != nil || r.Text != "Done." {
		t.Fatalf("resumed = %+v, %v", r, err)
	}
	if len(ran) != 1 || ran[0] != canonical || len(described) != 1 {
		t.Errorf("ran %q, described %d times; want %q run once", ran, len(described), canonical)
	}
}

// An approved call whose stored arguments cannot be read cannot run, and
// says why by a sentinel the bot words for the user (ErrBadArguments);
// a tool not offered says ErrToolNotOffered.
func TestCannotRunSaysWhyByItsKind(t *testing.T) {
	t.Parallel()
	a := agent.New(agent.Config{}, agent.Parts{Tools: agent.NewRegistry(agent.Tool{Name: "send"})})
	ctx := context.Background()
	for _, c := range []struct {
		ap   memory.Approval
		want error
	}{
		{memory.Approval{Subject: "send", Details: `{"to":"a","to":"b"}`}, agent.ErrBadArguments},
		{memory.Approval{Subject: "gone", Details: `{}`}, agent.ErrToolNotOffered},
		{memory.Approval{Subject: "send", Details: `{"to":"a"}`}, nil},
	} {
		if err := a.CannotRun(ctx, c.ap); !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
			t.Errorf("CannotRun(%s %s) = %v, want %v", c.ap.Subject, c.ap.Details, err, c.want)
		}
	}
}
