package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/agent"
	chat "github.com/membot/membot/agent/llm"
	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/memory"
)

// A tool that panics, one whose arguments fail validation, arguments that
// are not JSON and a tool that does not exist: the model sees an error
// result for each, the turn goes on and ends with the model's answer.
func TestToolFailuresAndPanicsBecomeResultsTheModelSees(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := openStore(t)
	llm := openaifake.New()
	defer llm.Close()
	client := &chat.Client{BaseURL: llm.URL(), APIKey: "sk-test"}
	var logs bytes.Buffer

	tools := agent.NewRegistry(
		agent.Tool{Name: "boom", Run: func(context.Context, *agent.TurnInfo, json.RawMessage) (string, error) {
			var m map[string]int
			//lint:ignore SA5000 the write to a nil map is the panic under test
			m["x"]++ // a nil map: a real bug, not a panic("...") call
			return "unreachable", nil
		}},
		agent.Tool{Name: "repeat", Run: func(_ context.Context, _ *agent.TurnInfo, raw json.RawMessage) (string, error) {
			var args struct{ Times int }
			if err := json.Unmarshal(raw, &args); err != nil {
				return "", err
			}
			if args.Times < 1 || args.Times > 10 {
				return "", errors.New("times must be from 1 to 10")
			}
			return strings.Repeat("ha", args.Times), nil
		}},
	)
	a := agent.New(agent.Config{Model: "m", HistoryLimit: 30},
		agent.Parts{Store: store, LLM: client, Tools: tools, Log: slog.New(slog.NewTextHandler(&logs, nil))})

	llm.Script(
		openaifake.Reply{ToolCalls: []openai.ToolCall{
			openaifake.ToolCall("c1", "boom", `{}`),
			openaifake.ToolCall("c2", "repeat", `{"times": 99}`),
			openaifake.ToolCall("c3", "repeat", `{"times": `),
			openaifake.ToolCall("c4", "missing", `{}`),
			openaifake.ToolCall("c5", "repeat", `{"times": 2}`),
		}},
		openaifake.Reply{Content: "Recovered."},
	)
	reply, err := a.Reply(ctx, agent.Request{User: memory.User{TelegramUserID: 1}, Chat: memory.Chat{ID: 1}, UpdateID: 10, Text: "go"})
	if err != nil || reply.Text != "Recovered." {
		t.Fatalf("Reply = %+v, %v", reply, err)
	}

	reqs := llm.Requests()
	if len(reqs) != 2 {
		t.Fatalf("model calls = %d, want 2", len(reqs))
	}
	results := map[string]string{}
	for _, m := range reqs[1].Messages {
		if m.Role == openai.ChatMessageRoleTool {
			results[m.ToolCallID] = m.Content
		}
	}
	want := map[string]string{
		"c1": "error: the tool crashed: assignment to entry in nil map",
		"c2": "error: times must be from 1 to 10",
		"c3": "error: the arguments are not valid JSON",
		"c4": `error: unknown tool "missing"`,
		"c5": "haha",
	}
	for id, prefix := range want {
		if !strings.HasPrefix(results[id], prefix) {
			t.Errorf("result of %s = %q, want it to start with %q", id, results[id], prefix)
		}
	}
	if strings.Contains(results["c1"], "goroutine") {
		t.Errorf("the model was shown the stack: %q", results["c1"])
	}
	if !strings.Contains(logs.String(), "tool panicked") || !strings.Contains(logs.String(), "goroutine") {
		t.Errorf("the panic's stack is not in the log:\n%s", logs.String())
	}

	var failed int
	store.Pool().QueryRow(ctx, `SELECT count(*) FROM messages WHERE role = 'tool' AND metadata ? 'error'`).Scan(&failed)
	if failed != 4 {
		t.Errorf("%d tool rows record an error, want 4", failed)
	}
}
