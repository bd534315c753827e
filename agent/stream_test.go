package agent_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/agent"
	chat "github.com/membot/membot/agent/llm"
	"github.com/membot/membot/agent/modes"
	"github.com/membot/membot/agent/tools"
	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/pgtest"
	"github.com/membot/membot/memory"
)

// recorder is a Sink that keeps what it was shown.
type recorder struct {
	mu       sync.Mutex
	text     strings.Builder
	deltas   int
	discards int
}

func (r *recorder) Text(d string) { r.mu.Lock(); r.text.WriteString(d); r.deltas++; r.mu.Unlock() }
func (r *recorder) Discard()      { r.mu.Lock(); r.text.Reset(); r.discards++; r.mu.Unlock() }

// openStore is a store over a fresh migrated database, closed at the
// test's end.
func openStore(t *testing.T) *memory.Store {
	t.Helper()
	store, err := memory.Open(context.Background(), pgtest.New(t), 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(store.Close)
	return store
}

func newAgent(t *testing.T, llm *openaifake.Server, modes *modes.Set) (*agent.Agent, *memory.Store) {
	t.Helper()
	store := openStore(t)
	client := &chat.Client{BaseURL: llm.URL(), APIKey: "sk-test"}
	tools := agent.NewRegistry(tools.Builtin(tools.Env{})...)
	a := agent.New(agent.Config{
		Model: "test-model", SystemPrompt: "BASE", Modes: modes, HistoryLimit: 30,
		Retry: agent.RetryPolicy{Timeout: 10 * time.Second, Backoff: time.Millisecond},
	}, agent.Parts{Store: store, LLM: client, Tools: tools, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	return a, store
}

var bob = memory.User{TelegramUserID: 77, FirstName: "Bob", LanguageCode: "en"}

func TestAStreamedAnswerReachesTheSinkPieceByPiece(t *testing.T) {
	t.Parallel()
	llm := openaifake.New()
	defer llm.Close()
	a, _ := newAgent(t, llm, nil)
	answer := strings.Repeat("Streaming works, word by word. ", 20)
	llm.Script(openaifake.Reply{Content: answer})
	sink := &recorder{}
	r, err := a.Reply(context.Background(), agent.Request{User: bob, Chat: memory.Chat{ID: 77}, UpdateID: 1, Text: "hi", Sink: sink})
	if err != nil {
		t.Fatal(err)
	}
	if r.Text != answer || sink.text.String() != answer || sink.deltas < 10 {
		t.Fatalf("reply %q, sink %q in %d deltas", r.Text, sink.text.String(), sink.deltas)
	}
	req := llm.Requests()[0]
	if !req.Stream || req.StreamOptions == nil || !req.StreamOptions.IncludeUsage {
		t.Fatalf("the request did not ask for a stream with usage: %+v", req.StreamOptions)
	}
}

func TestAStreamedToolCallInFragmentsRunsTheToolOnce(t *testing.T) {
	t.Parallel()
	llm := openaifake.New()
	defer llm.Close()
	a, store := newAgent(t, llm, nil)
	llm.Script(
		openaifake.Reply{Content: "Let me compute that.", ToolCalls: []openai.ToolCall{
			openaifake.ToolCall("call_a", "calculator", `{"expression": "12345 * 6789"}`),
			openaifake.ToolCall("call_b", "calculator", `{"expression": "(1 + 2) * 3"}`),
		}},
		openaifake.Reply{Content: "83810205 and 9."},
	)
	sink := &recorder{}
	r, err := a.Reply(context.Background(), agent.Request{User: bob, Chat: memory.Chat{ID: 77}, UpdateID: 2, Text: "compute", Sink: sink})
	if err != nil {
		t.Fatal(err)
	}
	// What was said before the tool calls was withdrawn from the sink.
	if r.Text != "83810205 and 9." || sink.text.String() != r.Text || sink.discards != 1 {
		t.Fatalf("reply %q, sink %q after %d discards", r.Text, sink.text.String(), sink.discards)
	}
	second := llm.Requests()[1].Messages
	results := map[string]string{}
	for _, m := range second {
		if m.Role == "tool" {
			results[m.ToolCallID] = m.Content
		}
	}
	if len(results) != 2 || results["call_a"] != "83810205" || results["call_b"] != "9" {
		t.Fatalf("tool results sent back = %v", results)
	}
	var toolRows int
	store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM messages WHERE role = 'tool'`).Scan(&toolRows)
	if toolRows != 2 {
		t.Fatalf("%d tool rows, want 2 (each call run once)", toolRows)
	}
}

func TestACutStreamIsRetriedAndTheSinkStartsOver(t *testing.T) {
	t.Parallel()
	llm := openaifake.New()
	defer llm.Close()
	a, _ := newAgent(t, llm, nil)
	llm.Script(openaifake.Reply{Content: "half an answer that gets cut", CutAfter: 3}, openaifake.Reply{Content: "the whole answer"})
	sink := &recorder{}
	r, err := a.Reply(context.Background(), agent.Request{User: bob, Chat: memory.Chat{ID: 77}, UpdateID: 3, Text: "hi", Sink: sink})
	if err != nil {
		t.Fatal(err)
	}
	if r.Text != "the whole answer" || sink.text.String() != r.Text || sink.discards != 1 || len(llm.Requests()) != 2 {
		t.Fatalf("reply %q, sink %q, %d discards, %d calls", r.Text, sink.text.String(), sink.discards, len(llm.Requests()))
	}
}

func TestTheConversationsModeChoosesTheSystemPrompt(t *testing.T) {
	t.Parallel()
	llm := openaifake.New()
	defer llm.Close()
	modes, err := modes.New("BASE", []modes.Mode{{Name: "pirate", Prompt: "Talk like a pirate."}})
	if err != nil {
		t.Fatal(err)
	}
	a, store := newAgent(t, llm, modes)
	ctx := context.Background()
	a.Reply(ctx, agent.Request{User: bob, Chat: memory.Chat{ID: 77}, UpdateID: 4, Text: "one"})
	store.Choices().SwitchMode(ctx, memory.Chat{ID: 77}, 77, "pirate", memory.SwitchByCommand)
	a.Reply(ctx, agent.Request{User: bob, Chat: memory.Chat{ID: 77}, UpdateID: 5, Text: "two"})
	reqs := llm.Requests()
	if got := reqs[0].Messages[0].Content; got != "BASE" {
		t.Fatalf("default system prompt = %q", got)
	}
	if got := reqs[1].Messages[0].Content; got != "BASE\n\nTalk like a pirate." {
		t.Fatalf("pirate system prompt = %q", got)
	}
}

func TestRegenerateAnswersTheLastUserMessageAgain(t *testing.T) {
	t.Parallel()
	llm := openaifake.New()
	defer llm.Close()
	a, store := newAgent(t, llm, nil)
	ctx := context.Background()
	llm.Script(openaifake.Reply{Content: "first try"}, openaifake.Reply{Content: "second try"})
	if _, err := a.Reply(ctx, agent.Request{User: bob, Chat: memory.Chat{ID: 77}, UpdateID: 6, Text: "question"}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Rollback(ctx, memory.RollbackStart{Chat: memory.Chat{ID: 77}, UpdateID: 7, Command: memory.RollbackRetry}); err != nil {
		t.Fatal(err)
	}
	r, err := a.Regenerate(ctx, agent.Request{User: bob, Chat: memory.Chat{ID: 77}, UpdateID: 7})
	if err != nil || r.Text != "second try" {
		t.Fatalf("regenerated = %+v, %v", r, err)
	}
	last := llm.Requests()[1].Messages
	if n := len(last); n != 2 || !strings.HasSuffix(last[1].Content, "question") {
		t.Fatalf("the second call saw %+v", last)
	}
	var rows []string
	res, _ := store.Pool().Query(ctx, `SELECT role || ':' || content || ':' || coalesce(update_id, 0) FROM messages ORDER BY id`)
	for res.Next() {
		var s string
		res.Scan(&s)
		rows = append(rows, s)
	}
	if len(rows) != 2 || !strings.HasSuffix(rows[1], "assistant:second try:7") {
		t.Fatalf("rows = %q", rows)
	}
}
