package agent

import (
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"sync"

	"github.com/membot/membot/agent/llm"
)

// Capabilities are what a model's server accepts. Their zero value is
// everything (the server is assumed to be OpenAI-like); what a server
// refuses is learned from its answer, per model, kept in memory and logged
// once; a setting may say it up front for servers that answer wrongly.
type Capabilities struct {
	NoTools           bool // no tools parameter (Ollama models without tool support, llama.cpp without --jinja)
	NoStreamOptions   bool // no stream_options (Groq, older Gemini endpoints, Mistral)
	NoStreamWithTools bool // tools only in plain calls (old llama-server: "Cannot use tools with stream")
	NoReasoningBack   bool // reasoning_content must not be sent back (DeepSeek R1)
	NoImages          bool // images are refused (text-only models): sent as a note instead
	// MaxTokensField is where the answer's bound goes: "max_tokens" or
	// "max_completion_tokens" (OpenAI's reasoning models refuse the
	// former). "" picks by the model's name.
	MaxTokensField string
}

// ParseCapabilities reads the flags of a MODELS entry.
func ParseCapabilities(flags []string) (Capabilities, error) {
	var c Capabilities
	for _, f := range flags {
		switch f {
		case "no-tools":
			c.NoTools = true
		case "no-stream-options":
			c.NoStreamOptions = true
		case "no-stream-with-tools":
			c.NoStreamWithTools = true
		case "no-reasoning-back":
			c.NoReasoningBack = true
		case "no-images":
			c.NoImages = true
		case "max_tokens", "max_completion_tokens":
			c.MaxTokensField = f
		default:
			return c, errors.New("unknown flag " + f + " (flags: no-tools, no-stream-options, no-stream-with-tools, no-reasoning-back, no-images, max_tokens, max_completion_tokens)")
		}
	}
	return c, nil
}

// TokensField is where the answer's bound goes for model: MaxTokensField,
// or else by the model's name.
func (c Capabilities) TokensField(model string) string {
	if c.MaxTokensField != "" {
		return c.MaxTokensField
	}
	for _, p := range []string{"o1", "o3", "o4", "gpt-5"} {
		if strings.HasPrefix(model, p) {
			return "max_completion_tokens"
		}
	}
	return "max_tokens"
}

// learned holds the capabilities of each model, as set and as learned.
type learned struct {
	mu   sync.Mutex
	caps map[string]Capabilities
	told map[string]bool // "model\x00what\x00chat": the chat was told the model cannot do what
	log  *slog.Logger
	// keepImages: images are never dropped on a refusal (VISION=on).
	keepImages bool
}

func (l *learned) get(model string) Capabilities {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.caps[model]
}

// tellOnce reports whether the chat is yet to be told what model cannot
// do (what: "tools", "images").
func (l *learned) tellOnce(model, what string, chatID int64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	key := model + "\x00" + what + "\x00" + strconv.FormatInt(chatID, 10)
	if l.told[key] {
		return false
	}
	l.told[key] = true
	return true
}

// learn looks at a failed call: when the server refused something the
// request carried that membot can do without, it records that for the
// model, logs it once and reports true (the call is made again without it).
func (l *learned) learn(model string, req llm.Request, err error) bool {
	var apiErr *llm.APIError
	if !errors.As(err, &apiErr) || apiErr.InStream || !refusalStatus(apiErr.Status) {
		return false
	}
	msg := strings.ToLower(apiErr.Message)
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.caps[model]
	var what string
	switch {
	case req.Stream && len(req.Tools) > 0 && strings.Contains(msg, "stream") && strings.Contains(msg, "tool") &&
		!c.NoStreamWithTools && !toolsRefused(msg):
		c.NoStreamWithTools, what = true, "tools only without streaming"
	case len(req.Tools) > 0 && toolsRefused(msg) && !c.NoTools:
		c.NoTools, what = true, "no tools"
	case req.StreamOptions != nil && strings.Contains(msg, "stream_options") && !c.NoStreamOptions:
		c.NoStreamOptions, what = true, "no stream_options (usage is estimated)"
	case req.MaxTokens > 0 && strings.Contains(msg, "max_tokens") && strings.Contains(msg, "max_completion_tokens") &&
		mentionsAny(msg, "unsupported", "not supported") && c.MaxTokensField == "":
		c.MaxTokensField, what = "max_completion_tokens", "max_completion_tokens instead of max_tokens"
	case req.MaxCompletionTokens > 0 && strings.Contains(msg, "max_completion_tokens") &&
		mentionsAny(msg, "unsupported", "not supported", "unknown", "unrecognized", "extra", "not permitted") && c.MaxTokensField == "":
		c.MaxTokensField, what = "max_tokens", "max_tokens instead of max_completion_tokens"
	case sendsImages(req) && mentionsAny(msg, "image", "vision", "multimodal", "multi-modal") && !c.NoImages && !l.keepImages:
		c.NoImages, what = true, "no images (described in words instead)"
	case sendsReasoning(req) && strings.Contains(msg, "reasoning_content") && !strings.Contains(msg, "missing") && !c.NoReasoningBack:
		c.NoReasoningBack, what = true, "no reasoning_content sent back"
	default:
		return false
	}
	l.caps[model] = c
	l.log.Warn("the model server refused part of a request; membot goes on without it for this model",
		"model", model, "now", what, "status", apiErr.Status, "refusal", apiErr.Message)
	return true
}

// toolsRefused reports whether a refusal's message says the model or the
// server takes no tools: Ollama "… does not support tools", llama.cpp
// "tools param requires --jinja flag", vLLM "\"auto\" tool choice requires
// --enable-auto-tool-choice and --tool-call-parser to be set", and others.
func toolsRefused(msg string) bool {
	return mentionsAny(msg, "does not support tools", "--jinja", "enable-auto-tool-choice", "tool-call-parser",
		"tools are not supported", "does not support function calling", "tools is not supported", "tool use is not supported",
		"function calling is not")
}

func mentionsAny(msg string, phrases ...string) bool {
	for _, p := range phrases {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// knownRefusal reports whether a server's error message refuses part of
// the request rather than failing for a while.
func knownRefusal(msg string) bool {
	msg = strings.ToLower(msg)
	return toolsRefused(msg) || strings.Contains(msg, "stream_options") || strings.Contains(msg, "cannot use tools with stream")
}

// refusalStatus is a status servers answer a request they will not take with.
func refusalStatus(status int) bool {
	switch status {
	case 400, 404, 422, 500, 501:
		return true
	}
	return false
}

func sendsImages(req llm.Request) bool {
	for _, m := range req.Messages {
		for _, p := range m.Parts {
			if p.ImageURL != nil {
				return true
			}
		}
	}
	return false
}

func sendsReasoning(req llm.Request) bool {
	for _, m := range req.Messages {
		if m.ReasoningContent != "" {
			return true
		}
	}
	return false
}
