// Package agent runs one conversation turn: it stores the user's message,
// builds the model's context from the conversation's recent rows, calls an
// OpenAI-compatible model, runs the tools it asks for, and stores every step.
// It knows nothing of Telegram.
package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/memory"
)

// ErrModel wraps failures of the model call that retries did not cure.
var ErrModel = errors.New("model call failed")

// Store is the part of the memory repository a turn needs.
type Store interface {
	StartTurn(ctx context.Context, in memory.TurnStart) (*memory.Turn, error)
	SaveStep(ctx context.Context, conversationID string, st memory.Step) ([]int64, error)
}

// Metrics is what a turn reports for monitoring; nil reports nothing.
type Metrics interface {
	// LLMRequest is one attempt of a model call; status is "ok", the HTTP
	// status of a failure, "timeout", "network" or "error".
	LLMRequest(model, status string, took time.Duration)
	ToolCall(tool string, ok bool)
}

// LLM is the chat completions API; *openai.Client satisfies it.
type LLM interface {
	CreateChatCompletion(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error)
}

// Config holds the settings of a turn.
type Config struct {
	Model         string
	SystemPrompt  string
	HistoryLimit  int
	Location      *time.Location // the wall clock of the stamps and of current_time
	MaxModelCalls int            // per turn, tool rounds included; 8 when zero
	Retry         RetryPolicy
	Now           func() time.Time // time.Now when nil
	Metrics       Metrics
}

// Agent answers messages. It is safe for concurrent use by different chats.
type Agent struct {
	store Store
	llm   LLM
	tools *Registry
	cfg   Config
	log   *slog.Logger
}

// New returns an agent that offers the model the given tools.
func New(store Store, llm LLM, tools *Registry, cfg Config, log *slog.Logger) *Agent {
	if cfg.MaxModelCalls <= 0 {
		cfg.MaxModelCalls = 8
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Location == nil {
		cfg.Location = time.UTC
	}
	if cfg.Metrics == nil {
		cfg.Metrics = noMetrics{}
	}
	return &Agent{store: store, llm: llm, tools: tools, cfg: cfg, log: log}
}

// Request is one incoming text message.
type Request struct {
	User      memory.User
	ChatID    int64
	UpdateID  int64 // makes the turn resumable after a crash; 0 when none
	MessageID int64 // the Telegram message id of the user's message
	Text      string
}

// Reply is the turn's answer.
type Reply struct {
	Text      string
	MessageID int64    // the stored assistant row
	ToolsUsed []string // distinct tool names, in order of first use
	// Resumed is true when an earlier attempt had already stored this answer
	// (it crashed before delivering it): the model was not called again.
	Resumed           bool
	AlreadyDelivered  bool  // and it had even been sent
	TelegramMessageID int64 // where, when AlreadyDelivered
}

// Stamp prefixes text with the wall-clock time in loc, as the model sees it.
func Stamp(t time.Time, loc *time.Location, text string) string {
	return "[Текущее время: " + t.In(loc).Format("2006-01-02 15:04") + "] " + text
}

// Reply runs one turn for req and returns the answer to send.
func (a *Agent) Reply(ctx context.Context, req Request) (*Reply, error) {
	turn, err := a.store.StartTurn(ctx, memory.TurnStart{
		User: req.User, ChatID: req.ChatID, UpdateID: req.UpdateID, TelegramMessageID: req.MessageID,
		Content: Stamp(a.cfg.Now(), a.cfg.Location, req.Text), HistoryLimit: a.cfg.HistoryLimit,
	})
	if err != nil {
		return nil, err
	}
	if turn.Answer != nil {
		return &Reply{Text: turn.Answer.Content, MessageID: turn.Answer.ID, Resumed: true,
			AlreadyDelivered: turn.Answer.TelegramMessageID != 0, TelegramMessageID: turn.Answer.TelegramMessageID}, nil
	}

	history := toChatMessages(validWindow(turn.History))
	var used []string
	for call := 1; ; call++ {
		// The last allowed call offers no tools, so the model must answer.
		offerTools := call < a.cfg.MaxModelCalls
		resp, llmCall, err := a.complete(ctx, req, history, offerTools)
		if err != nil {
			a.recordFailure(ctx, turn.ConversationID, req, llmCall)
			return nil, err
		}
		msg := resp.Choices[0].Message
		if len(msg.ToolCalls) == 0 || !offerTools {
			return a.finish(ctx, turn.ConversationID, req.UpdateID, msg.Content, llmCall, used)
		}
		rows := a.runTools(ctx, msg, req.UpdateID, callMeta(llmCall))
		step := memory.Step{Messages: rows, LLMCalls: []memory.LLMCall{llmCall}, Events: toolEvents(req, rows[1:])}
		if _, err := a.store.SaveStep(ctx, turn.ConversationID, step); err != nil {
			return nil, err
		}
		history = append(history, toChatMessages(rows)...)
		for _, r := range rows[1:] {
			used = appendOnce(used, r.ToolName)
		}
	}
}

// finish stores the final answer, the call that produced it and, when
// tools were used, the system row that names them.
func (a *Agent) finish(ctx context.Context, conversationID string, updateID int64, text string, call memory.LLMCall, used []string) (*Reply, error) {
	rows := []memory.Message{{Role: memory.RoleAssistant, Content: text, UpdateID: updateID, Metadata: callMeta(call)}}
	if len(used) > 0 {
		rows = append(rows, memory.Message{Role: memory.RoleSystem, Content: "Tools used: " + strings.Join(used, ", "), UpdateID: updateID})
	}
	ids, err := a.store.SaveStep(ctx, conversationID, memory.Step{Messages: rows, LLMCalls: []memory.LLMCall{call}})
	if err != nil {
		return nil, err
	}
	return &Reply{Text: text, MessageID: ids[0], ToolsUsed: used}, nil
}

// complete makes one model call with the system prompt, history and,
// when offered, the tools; it returns what the call cost, failed or not.
func (a *Agent) complete(ctx context.Context, r Request, history []openai.ChatCompletionMessage, offerTools bool) (openai.ChatCompletionResponse, memory.LLMCall, error) {
	req := openai.ChatCompletionRequest{
		Model:    a.cfg.Model,
		Messages: append([]openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleSystem, Content: a.cfg.SystemPrompt}}, history...),
	}
	if offerTools {
		req.Tools = a.tools.Definitions()
	}
	call := memory.LLMCall{UserID: r.User.TelegramUserID, ChatID: r.ChatID, UpdateID: r.UpdateID, Model: a.cfg.Model, Status: "ok"}
	start := time.Now()
	resp, err := a.createWithRetry(ctx, req)
	call.Latency = time.Since(start)
	if err == nil && len(resp.Choices) == 0 {
		err = errors.New("the response has no choices")
	}
	if err != nil {
		call.Status, call.Error = callStatus(err), truncate(err.Error(), 2000)
		return resp, call, fmt.Errorf("%w: %w", ErrModel, err)
	}
	if resp.Model != "" {
		call.Model = resp.Model
	}
	call.PromptTokens, call.CompletionTokens = resp.Usage.PromptTokens, resp.Usage.CompletionTokens
	return resp, call, nil
}

// callMeta is what an assistant row's metadata says of the call behind it.
func callMeta(c memory.LLMCall) map[string]any {
	return map[string]any{
		"model":             c.Model,
		"prompt_tokens":     c.PromptTokens,
		"completion_tokens": c.CompletionTokens,
		"latency_ms":        c.Latency.Milliseconds(),
	}
}

// recordFailure stores a model call that failed for good, with its
// llm_error event. The turn fails anyway, so a storage error is only logged.
func (a *Agent) recordFailure(ctx context.Context, conversationID string, req Request, call memory.LLMCall) {
	if ctx.Err() != nil {
		return // shutting down: the turn is taken up again, nothing failed for good
	}
	ev := memory.Event{Type: memory.EventLLMError, UserID: req.User.TelegramUserID, ChatID: req.ChatID, UpdateID: req.UpdateID,
		Payload: map[string]any{"model": call.Model, "status": call.Status, "error": call.Error, "latency_ms": call.Latency.Milliseconds()}}
	if _, err := a.store.SaveStep(ctx, conversationID, memory.Step{LLMCalls: []memory.LLMCall{call}, Events: []memory.Event{ev}}); err != nil {
		a.log.Warn("recording a failed model call failed", "update_id", req.UpdateID, "err", err)
	}
}

type noMetrics struct{}

func (noMetrics) LLMRequest(string, string, time.Duration) {}
func (noMetrics) ToolCall(string, bool)                    {}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
