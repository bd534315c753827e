package agent

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/membot/membot/agent/llm"
	"github.com/membot/membot/agent/request"
	"github.com/membot/membot/memory"
)

// LLM is a chat completions endpoint; *llm.Client is one.
type LLM interface {
	Complete(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (*llm.Response, error)
}

// Model is one of the models a chat may use (/model): settings, as
// MODELS names them. The server it is asked at is a part
// (Parts.Servers), built by the wiring from its base URL and key.
type Model struct {
	Name string
	Caps Capabilities // what its server is known to refuse
}

// Sink shows an answer while the model writes it; the bot implements it.
// Its methods are called from the turn's goroutine, one at a time, and
// should return quickly.
type Sink interface {
	// Text adds the next piece of the answer.
	Text(delta string)
	// Discard drops the text given so far: the model went on to call tools,
	// so it was not the answer, or the call failed and is made again, or
	// what looked like the answer was its thinking.
	Discard()
}

// ReasoningSink is a Sink that also shows the model's thinking as it comes.
type ReasoningSink interface {
	Reasoning(delta string)
}

// complete makes one model call with the turn's context and, when offered
// and the model takes them, the tools; with the turn's sink, the answer is
// streamed to it. A refusal of something membot can do without (tools,
// stream_options, ...) is learned and the call made again without it. It
// returns what the call cost, failed or not.
func (a *Agent) complete(ctx context.Context, t *turnState, rows []memory.Message, offerTools bool) (*llm.Response, memory.LLMCall, error) {
	call := memory.LLMCall{UserID: t.info.UserID, ChatID: t.info.Chat.ID, UpdateID: t.info.UpdateID, Model: t.model, Status: "ok"}
	client := a.client(t.model)
	start := time.Now()
	var resp *llm.Response
	var req llm.Request
	var err error
	for range 6 { // each round drops something the server refused
		caps := a.caps.get(t.model)
		req = a.request(t, rows, offerTools && !caps.NoTools, caps)
		if offerTools && caps.NoTools && a.caps.tellOnce(t.model, "tools", t.info.Chat.ID) {
			t.notes = appendOnce(t.notes, noToolsNote(t.lang, t.model))
		}
		resp, err = a.call(ctx, client, req, t.sink)
		if err == nil || !a.caps.learn(t.model, req, err) {
			break
		}
	}
	call.Latency = time.Since(start)
	if err != nil {
		call.Status, call.Error = callStatus(err), Truncate(err.Error(), 2000)
		return nil, call, fmt.Errorf("%w: %w", ErrModel, err)
	}
	if resp.Model != "" {
		call.Model = resp.Model
	}
	if resp.Usage != nil {
		// A server may count an image at less than its weight (or not at
		// all): the budget counts it at TokensPerImage at least.
		call.PromptTokens = max(resp.Usage.PromptTokens, request.CountImages(req)*request.TokensPerImage)
		call.CompletionTokens = resp.Usage.CompletionTokens
	} else {
		call.PromptTokens, call.CompletionTokens, call.UsageEstimated = request.EstimatePrompt(req), request.EstimateAnswer(resp), true
		a.warnOnce("usage:"+t.model, "the model server sent no usage; membot estimates it (llm_calls.usage_estimated)", "model", t.model)
	}
	return resp, call, nil
}

// call makes one call, repeating the failures that may pass. Each attempt
// is bounded as a whole by the retry policy's Timeout; the client bounds
// the gaps between streamed chunks.
func (a *Agent) call(ctx context.Context, client LLM, req llm.Request, sink Sink) (*llm.Response, error) {
	var resp *llm.Response
	attempts := 0
	onDelta := func(llm.Delta) {}
	if sink != nil && req.Stream {
		rs, _ := sink.(ReasoningSink)
		onDelta = func(d llm.Delta) {
			switch {
			case d.Reset:
				sink.Discard()
			case d.Content != "":
				sink.Text(d.Content)
			case d.Reasoning != "" && rs != nil:
				rs.Reasoning(d.Reasoning)
			}
		}
	}
	err := a.withRetry(ctx, req.Model, func(ctx context.Context) (err error) {
		attempts++
		if sink != nil && attempts > 1 {
			sink.Discard() // the failed attempt's text is shown no longer
		}
		resp, err = client.Complete(ctx, req, onDelta)
		return err
	})
	return resp, err
}

// request builds the request of one call.
func (a *Agent) request(t *turnState, rows []memory.Message, tools bool, caps Capabilities) llm.Request {
	budget := 0
	defs, defTokens := a.tools.Definitions() // the set of this moment: MCP servers change theirs
	if a.cfg.ContextTokens > 0 {
		budget = a.cfg.ContextTokens - a.answerReserve()
		if tools {
			budget -= defTokens
			if defTokens > a.cfg.ContextTokens/2 {
				a.warnOnce("tool-definitions", "the tools' definitions take more than half of CONTEXT_TOKENS, so the model sees little history: "+
					"raise CONTEXT_TOKENS or offer fewer MCP tools", "tool_tokens", defTokens, "context_tokens", a.cfg.ContextTokens)
			}
		}
		budget = max(budget, 1) // 0 is no bound: with no room left, the turn at hand is sent alone
	}
	req := llm.Request{Model: t.model, Messages: request.Context{System: t.system, Rows: rows, Tokens: budget, Images: t.images, DropReasoning: caps.NoReasoningBack}.Build()}
	if caps.NoImages && sendsImages(req) {
		req.Messages = request.WithoutImages(req.Messages)
		if a.caps.tellOnce(t.model, "images", t.info.Chat.ID) {
			t.notes = appendOnce(t.notes, noImagesNote(t.lang, t.model))
		}
	}
	if tools {
		req.Tools = defs
	}
	if t.sink != nil && !(tools && caps.NoStreamWithTools) {
		req.Stream = true
		if !caps.NoStreamOptions {
			req.StreamOptions = &llm.StreamOptions{IncludeUsage: true}
		}
	}
	if n := a.cfg.MaxAnswerTokens; n > 0 {
		if caps.TokensField(t.model) == "max_completion_tokens" {
			req.MaxCompletionTokens = n
		} else {
			req.MaxTokens = n
		}
	}
	return req
}

// answerReserve is the part of CONTEXT_TOKENS kept for the answer.
func (a *Agent) answerReserve() int {
	if a.cfg.MaxAnswerTokens > 0 {
		return min(a.cfg.MaxAnswerTokens, a.cfg.ContextTokens/4)
	}
	return a.cfg.ContextTokens / 8
}

// Models are the names of the models a chat may choose (/model), the
// default first.
func (a *Agent) Models() []string {
	names := []string{a.cfg.Model}
	for _, m := range a.cfg.Models {
		if m.Name != a.cfg.Model {
			names = append(names, m.Name)
		}
	}
	return names
}

// ModelFor is the model a conversation with the stored choice uses: the
// default for "" or a model no longer configured.
func (a *Agent) ModelFor(chosen string) string {
	for _, m := range a.Models() {
		if m == chosen {
			return m
		}
	}
	return a.cfg.Model
}

// client is the server of model.
func (a *Agent) client(model string) LLM {
	if server := a.parts.Servers[model]; server != nil {
		return server
	}
	return a.llm
}

// warnOnce logs msg the first time key is seen.
func (a *Agent) warnOnce(key, msg string, args ...any) {
	if _, seen := a.warned.LoadOrStore(key, true); !seen {
		a.log.Warn(msg, args...)
	}
}

// finishNote is what the user is told of an answer that did not end normally.
func finishNote(lang, reason string) string {
	ru := strings.HasPrefix(lang, "ru")
	switch {
	case reason == llm.FinishLength && ru:
		return "⚠️ Ответ оборван: он достиг предела длины."
	case reason == llm.FinishLength:
		return "⚠️ The answer was cut off: it reached the length limit."
	case reason == llm.FinishContentFilter && ru:
		return "⚠️ Ответ остановлен фильтром содержимого сервера модели."
	case reason == llm.FinishContentFilter:
		return "⚠️ The model server's content filter stopped this answer."
	}
	return ""
}

func noToolsNote(lang, model string) string {
	if strings.HasPrefix(lang, "ru") {
		return "ℹ️ Модель " + model + " не умеет вызывать инструменты, поэтому отвечает без них (без напоминаний, памяти и веб-страниц)."
	}
	return "ℹ️ The model " + model + " cannot use tools, so it answers without them (no reminders, memory or web pages)."
}

func noImagesNote(lang, model string) string {
	if strings.HasPrefix(lang, "ru") {
		return "ℹ️ Модель " + model + " не видит изображений: она получила только текст."
	}
	return "ℹ️ The model " + model + " cannot see images: it got the text only."
}

// reasoningMeta is what an assistant row's metadata keeps of the model's
// thinking: its text (bounded), its length, and where it came from.
func reasoningMeta(meta map[string]any, r *llm.Response) {
	if r.Reasoning == "" {
		return
	}
	meta["reasoning"] = Truncate(r.Reasoning, maxStoredReasoning)
	meta["reasoning_chars"] = len([]rune(r.Reasoning))
	meta["reasoning_from"] = r.ReasoningFrom
}

// maxStoredReasoning bounds the thinking kept with a row, in bytes.
const maxStoredReasoning = 64 << 10

// errCallTimeout is an attempt that took longer than the whole call may.
var errCallTimeout = fmt.Errorf("the model call took longer than LLM_TIMEOUT: %w", context.DeadlineExceeded)
