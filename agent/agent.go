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
	StartRetry(ctx context.Context, in memory.RetryStart) (*memory.Turn, error)
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
	CreateChatCompletionStream(ctx context.Context, req openai.ChatCompletionRequest) (*openai.ChatCompletionStream, error)
}

// Config holds the settings of a turn.
type Config struct {
	Model         string
	SystemPrompt  string // the base prompt; a conversation's mode adds to it
	Modes         *Modes // the built-in modes when nil
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
	if cfg.Modes == nil {
		cfg.Modes, _ = NewModes(cfg.SystemPrompt, nil) // the built-ins are valid
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
	// Sink, when not nil, gets the answer while the model writes it: the
	// model is then called in streaming mode.
	Sink Sink
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

// Unstamp returns a user row's text without the time stamp Stamp put before it.
func Unstamp(content string) string {
	if rest, ok := strings.CutPrefix(content, "[Текущее время: "); ok {
		if _, text, ok := strings.Cut(rest, "] "); ok {
			return text
		}
	}
	return content
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
	return a.answer(ctx, turn, req)
}

// Regenerate answers the chat's last user message again (/retry): the old
// answer with its tool calls and results is removed first. req.UpdateID is
// the command's update, and req.Text is not used. It returns
// memory.ErrNoUserMessage when the conversation has no user message.
func (a *Agent) Regenerate(ctx context.Context, req Request) (*Reply, error) {
	turn, err := a.store.StartRetry(ctx, memory.RetryStart{ChatID: req.ChatID, UpdateID: req.UpdateID, HistoryLimit: a.cfg.HistoryLimit})
	if err != nil {
		return nil, err
	}
	return a.answer(ctx, turn, req)
}

// answer runs the model, and the tools it calls, until it answers, and
// stores every step. A turn whose answer is already stored is not run again.
func (a *Agent) answer(ctx context.Context, turn *memory.Turn, req Request) (*Reply, error) {
	if turn.Answer != nil {
		return &Reply{Text: turn.Answer.Content, MessageID: turn.Answer.ID, Resumed: true,
			AlreadyDelivered: turn.Answer.TelegramMessageID != 0, TelegramMessageID: turn.Answer.TelegramMessageID}, nil
	}

	system := a.cfg.Modes.SystemPrompt(turn.Mode)
	history := toChatMessages(validWindow(turn.History))
	var used []string
	for call := 1; ; call++ {
		// The last allowed call offers no tools, so the model must answer.
		offerTools := call < a.cfg.MaxModelCalls
		resp, llmCall, err := a.complete(ctx, req, system, history, offerTools)
		if err != nil {
			a.recordFailure(ctx, turn.ConversationID, req, llmCall)
			return nil, err
		}
		msg := resp.Choices[0].Message
		if len(msg.ToolCalls) == 0 || !offerTools {
			return a.finish(ctx, turn.ConversationID, req.UpdateID, msg.Content, llmCall, used)
		}
		if req.Sink != nil {
			req.Sink.Discard() // whatever it said before calling tools is not the answer
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
// when offered, the tools; with a sink in r, the answer is streamed to it.
// It returns what the call cost, failed or not.
func (a *Agent) complete(ctx context.Context, r Request, system string, history []openai.ChatCompletionMessage, offerTools bool) (openai.ChatCompletionResponse, memory.LLMCall, error) {
	req := openai.ChatCompletionRequest{
		Model:    a.cfg.Model,
		Messages: append([]openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleSystem, Content: system}}, history...),
	}
	if offerTools {
		req.Tools = a.tools.Definitions()
	}
	call := memory.LLMCall{UserID: r.User.TelegramUserID, ChatID: r.ChatID, UpdateID: r.UpdateID, Model: a.cfg.Model, Status: "ok"}
	start := time.Now()
	var resp openai.ChatCompletionResponse
	attempts := 0
	err := a.withRetry(ctx, req.Model, func(ctx context.Context, timeout time.Duration) (err error) {
		attempts++
		if r.Sink == nil {
			ctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			resp, err = a.llm.CreateChatCompletion(ctx, req)
			return err
		}
		if attempts > 1 {
			r.Sink.Discard() // the failed attempt's text is shown no longer
		}
		resp, err = a.stream(ctx, req, r.Sink, timeout)
		return err
	})
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
