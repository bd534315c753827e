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
	AppendMessages(ctx context.Context, conversationID string, msgs ...memory.Message) ([]int64, error)
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
		resp, meta, err := a.complete(ctx, system, history, offerTools, req.Sink)
		if err != nil {
			return nil, err
		}
		msg := resp.Choices[0].Message
		if len(msg.ToolCalls) == 0 || !offerTools {
			return a.finish(ctx, turn.ConversationID, req.UpdateID, msg.Content, meta, used)
		}
		if req.Sink != nil {
			req.Sink.Discard() // whatever it said before calling tools is not the answer
		}
		rows := a.runTools(ctx, msg, req.UpdateID, meta)
		if _, err := a.store.AppendMessages(ctx, turn.ConversationID, rows...); err != nil {
			return nil, err
		}
		history = append(history, toChatMessages(rows)...)
		for _, r := range rows[1:] {
			used = appendOnce(used, r.ToolName)
		}
	}
}

// finish stores the final answer and, when tools were used, the system row
// that names them.
func (a *Agent) finish(ctx context.Context, conversationID string, updateID int64, text string, meta map[string]any, used []string) (*Reply, error) {
	rows := []memory.Message{{Role: memory.RoleAssistant, Content: text, UpdateID: updateID, Metadata: meta}}
	if len(used) > 0 {
		rows = append(rows, memory.Message{Role: memory.RoleSystem, Content: "Tools used: " + strings.Join(used, ", "), UpdateID: updateID})
	}
	ids, err := a.store.AppendMessages(ctx, conversationID, rows...)
	if err != nil {
		return nil, err
	}
	return &Reply{Text: text, MessageID: ids[0], ToolsUsed: used}, nil
}

// complete makes one model call with the system prompt, history and,
// when offered, the tools; with a sink, the answer is streamed to it. It
// returns the call's facts for the row's metadata.
func (a *Agent) complete(ctx context.Context, system string, history []openai.ChatCompletionMessage, offerTools bool, sink Sink) (openai.ChatCompletionResponse, map[string]any, error) {
	req := openai.ChatCompletionRequest{
		Model:    a.cfg.Model,
		Messages: append([]openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleSystem, Content: system}}, history...),
	}
	if offerTools {
		req.Tools = a.tools.Definitions()
	}
	start := time.Now()
	var resp openai.ChatCompletionResponse
	attempts := 0
	err := a.withRetry(ctx, func(ctx context.Context, timeout time.Duration) (err error) {
		attempts++
		if sink == nil {
			ctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			resp, err = a.llm.CreateChatCompletion(ctx, req)
			return err
		}
		if attempts > 1 {
			sink.Discard() // the failed attempt's text is shown no longer
		}
		resp, err = a.stream(ctx, req, sink, timeout)
		return err
	})
	if err != nil {
		return resp, nil, fmt.Errorf("%w: %w", ErrModel, err)
	}
	if len(resp.Choices) == 0 {
		return resp, nil, fmt.Errorf("%w: the response has no choices", ErrModel)
	}
	meta := map[string]any{
		"model":             resp.Model,
		"prompt_tokens":     resp.Usage.PromptTokens,
		"completion_tokens": resp.Usage.CompletionTokens,
		"latency_ms":        time.Since(start).Milliseconds(),
	}
	if sink != nil {
		meta["streamed"] = true
	}
	return resp, meta, nil
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
