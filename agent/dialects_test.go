package agent_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/membot/membot/agent"
	chat "github.com/membot/membot/agent/llm"
	"github.com/membot/membot/agent/tools"
	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/pgtest"
	"github.com/membot/membot/memory"
)

// Every dialect holds a conversation: a streamed turn with a tool call, a
// failed turn, and a streamed answer after it. What the server refuses is
// learned, the thinking never reaches the answer, and what the server
// needs back is sent back.
func TestAConversationWithEveryDialect(t *testing.T) {
	t.Parallel()
	for _, d := range openaifake.Dialects {
		t.Run(d.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dsn := pgtest.New(t)
			store, err := memory.Open(ctx, dsn, 4)
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			fake := openaifake.NewDialect(d)
			defer fake.Close()
			fake.RespondWith(openaifake.ThinkingModel)
			var logs bytes.Buffer
			a := agent.New(agent.Config{Model: d.Name + "-model", HistoryLimit: 30, MaxAnswerTokens: 500, ContextTokens: 8000,
				Retry: agent.RetryPolicy{Timeout: 10 * time.Second, Attempts: 2, Backoff: time.Millisecond}},
				agent.Parts{Store: store, LLM: &chat.Client{BaseURL: fake.URL()}, Tools: agent.NewRegistry(tools.Builtin(tools.Env{})...),
					Log: slog.New(slog.NewTextHandler(&logs, nil))})
			user := memory.User{TelegramUserID: 5, FirstName: "Eve", LanguageCode: "en"}

			sink := &recorder{}
			r, err := a.Reply(ctx, agent.Request{User: user, Chat: memory.Chat{ID: 5}, UpdateID: 1, Text: "please calculate 6*7", Sink: sink})
			if err != nil {
				t.Fatalf("turn with a tool call: %v\n%s", err, logs.String())
			}
			toolsWork := d.ToolsRefused == nil
			switch {
			case toolsWork && !strings.HasPrefix(r.Text, "The result is 42."):
				t.Fatalf("tool turn answered %q", r.Text)
			case !toolsWork && !strings.Contains(r.Text, "cannot use tools"):
				t.Fatalf("a model without tools answered %q without saying so", r.Text)
			}
			if strings.Contains(r.Text, "think") || strings.Contains(r.Text, "The tool said") || strings.Contains(sink.text.String(), "The tool said") {
				t.Fatalf("thinking shown as the answer: %q (streamed %q)", r.Text, sink.text.String())
			}
			if toolsWork && d.Reasoning != "" && !strings.Contains(r.Reasoning, "The tool said 42") {
				t.Fatalf("reasoning %q", r.Reasoning)
			}

			if _, err := a.Reply(ctx, agent.Request{User: user, Chat: memory.Chat{ID: 5}, UpdateID: 2, Text: "now fail", Sink: &recorder{}}); !errors.Is(err, agent.ErrModel) {
				t.Fatalf("the failing turn: %v", err)
			}

			sink = &recorder{}
			r, err = a.Reply(ctx, agent.Request{User: user, Chat: memory.Chat{ID: 5}, UpdateID: 3, Text: "hello again", Sink: sink})
			if err != nil || !strings.HasPrefix(r.Text, "echo:") || !strings.Contains(r.Text, "hello again") {
				t.Fatalf("after the failure: %+v, %v\n%s", r, err, logs.String())
			}
			if strings.Contains(r.Text, "cannot use tools") {
				t.Fatalf("told again that the model cannot use tools: %q", r.Text)
			}
			// Each refusal is learned at once, never repeated (a retried
			// refusal would count 4): at most one per capability refused.
			if refused := fake.Refusals(); refused > 2 {
				t.Fatalf("the server refused %d requests", refused)
			}
			if (d.NeedsReasoningBack || d.ThoughtSignatures) && fake.Refusals() != 0 {
				t.Fatalf("the server refused %d requests for what it needs back", fake.Refusals())
			}
			for _, req := range fake.Requests() {
				if err := openaifake.CheckRoles(req.Messages); err != nil {
					t.Fatalf("a request broke the role invariant: %v", err)
				}
			}

			conn, err := pgx.Connect(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			var calls, estimated, withReasoning int
			if err := conn.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE usage_estimated) FROM llm_calls WHERE status = 'ok'`).Scan(&calls, &estimated); err != nil {
				t.Fatal(err)
			}
			if err := conn.QueryRow(ctx, `SELECT count(*) FROM messages WHERE role = 'assistant' AND metadata->>'reasoning_chars' IS NOT NULL
				AND content NOT LIKE '%think%'`).Scan(&withReasoning); err != nil {
				t.Fatal(err)
			}
			// Usage is estimated for streams without it; a server that takes
			// tools only without streaming answers every call (all offer tools) whole.
			wantEstimated := (d.StreamUsage == "never" && d.StreamWithToolsRefused == nil) ||
				(d.StreamOptionsRefused != nil && d.StreamUsage == "")
			if calls < 2 || (estimated > 0) != wantEstimated {
				t.Fatalf("%d ok calls, %d with usage estimated (want some: %v)", calls, estimated, wantEstimated)
			}
			if d.Reasoning != "" && withReasoning < 2 {
				t.Fatalf("%d assistant rows keep their reasoning", withReasoning)
			}
		})
	}
}

// A conversation switched to another model talks to that model's server.
func TestTheConversationsModelChoosesItsServer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := openStore(t)
	main, local := openaifake.New(), openaifake.NewDialect(openaifake.DialectNamed("ollama-old"))
	defer main.Close()
	defer local.Close()
	a := agent.New(agent.Config{Model: "gpt-4o-mini", HistoryLimit: 30, Models: []agent.Model{
		{Name: "gpt-4o-mini"}, {Name: "gemma3:4b", Caps: agent.Capabilities{NoTools: true}}}},
		agent.Parts{Store: store, LLM: &chat.Client{BaseURL: main.URL()}, Tools: agent.NewRegistry(tools.Builtin(tools.Env{})...),
			Servers: map[string]agent.LLM{"gemma3:4b": &chat.Client{BaseURL: local.URL()}}, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if got := a.Models(); len(got) != 2 || got[0] != "gpt-4o-mini" || got[1] != "gemma3:4b" {
		t.Fatalf("models = %v", got)
	}
	if _, err := store.Choices().SwitchModel(ctx, memory.Chat{ID: 9}, 9, "gemma3:4b", memory.SwitchByCommand); err != nil {
		t.Fatal(err)
	}
	r, err := a.Reply(ctx, agent.Request{User: memory.User{TelegramUserID: 9}, Chat: memory.Chat{ID: 9}, UpdateID: 1, Text: "hi"})
	if err != nil || !strings.HasPrefix(r.Text, "echo: hi") || !strings.Contains(r.Text, "cannot use tools") {
		t.Fatalf("reply = %+v, %v", r, err)
	}
	reqs := local.Requests()
	if len(main.Requests()) != 0 || len(reqs) != 1 || reqs[0].Model != "gemma3:4b" || len(reqs[0].Tools) != 0 || local.Refusals() != 0 {
		t.Fatalf("main got %d requests, the local server %d (tools sent: %v, refused %d)", len(main.Requests()), len(reqs), len(reqs) > 0 && len(reqs[0].Tools) > 0, local.Refusals())
	}
	var model string
	if err := store.Pool().QueryRow(ctx, `SELECT model FROM llm_calls`).Scan(&model); err != nil || model != "gemma3:4b" {
		t.Fatalf("llm_calls.model = %q, %v", model, err)
	}
}
