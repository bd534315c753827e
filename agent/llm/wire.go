// Package llm speaks the chat completions API of OpenAI-compatible servers
// (OpenAI, Ollama, vLLM, llama.cpp, LM Studio, OpenRouter, DeepSeek, Groq,
// Mistral, Gemini). It keeps what go-openai's types drop and the servers
// need back (reasoning_content, unknown fields of tool calls such as
// Gemini's thought signatures), separates reasoning from the answer, and
// bounds everything it reads: the body, the answer, each tool call's
// arguments, the whole call and the gaps between streamed chunks.
package llm

import (
	"bytes"
	"encoding/json"

	"github.com/sashabaranov/go-openai"
)

// Roles of messages.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Part is one piece of a multi-part user message (text or an image).
type Part struct {
	Type     string    `json:"type"` // "text" or "image_url"
	Text     string    `json:"text,omitempty"`
	ImageURL *ImageURL `json:"image_url,omitempty"`
}

// ImageURL is an image given by URL or as a data: URL.
type ImageURL struct {
	URL    string `json:"url"`
	Detail string `json:"detail,omitempty"`
}

// Message is one message of a request, or the assistant's message of a response.
type Message struct {
	Role    string
	Content string
	// Parts, when set, are sent as the content instead of Content.
	Parts      []Part
	ToolCalls  []ToolCall
	ToolCallID string
	// ReasoningContent is sent back as reasoning_content: DeepSeek's
	// thinking mode refuses a tool follow-up without it.
	ReasoningContent string
}

type wireMessage struct {
	Role             string     `json:"role"`
	Content          any        `json:"content"`
	ToolCalls        []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID       string     `json:"tool_call_id,omitempty"`
	ReasoningContent string     `json:"reasoning_content,omitempty"`
}

// MarshalJSON writes the message as the API expects it.
func (m Message) MarshalJSON() ([]byte, error) {
	return json.Marshal(m.wire())
}

// wire is the message as the API expects it.
func (m Message) wire() wireMessage {
	w := wireMessage{Role: m.Role, Content: m.Content, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID,
		ReasoningContent: m.ReasoningContent}
	if len(m.Parts) > 0 {
		w.Content = m.Parts
	}
	return w
}

// FunctionCall is what a tool call asks for.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ToolCall is a call of a tool by the model. Fields this package does not
// know (Gemini 3's extra_content with its thought_signature) are kept in
// Extra and sent back as they came.
type ToolCall struct {
	Index    *int // in streamed fragments only; never sent
	ID       string
	Type     string
	Function FunctionCall
	Extra    map[string]json.RawMessage
}

var toolCallKeys = []string{"index", "id", "type", "function"}

// UnmarshalJSON reads a tool call, keeping its unknown fields.
func (c *ToolCall) UnmarshalJSON(data []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return err
	}
	var known struct {
		Index    *int         `json:"index"`
		ID       string       `json:"id"`
		Type     string       `json:"type"`
		Function FunctionCall `json:"function"`
	}
	if err := json.Unmarshal(data, &known); err != nil {
		return err
	}
	*c = ToolCall{Index: known.Index, ID: known.ID, Type: known.Type, Function: known.Function}
	for _, k := range toolCallKeys {
		delete(fields, k)
	}
	for k, v := range fields {
		if bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			continue
		}
		if c.Extra == nil {
			c.Extra = map[string]json.RawMessage{}
		}
		c.Extra[k] = v
	}
	return nil
}

// MarshalJSON writes the call as sent back to the server, unknown fields included.
func (c ToolCall) MarshalJSON() ([]byte, error) {
	fields := make(map[string]any, len(c.Extra)+3)
	for k, v := range c.Extra {
		fields[k] = v
	}
	typ := c.Type
	if typ == "" {
		typ = "function"
	}
	fields["id"], fields["type"], fields["function"] = c.ID, typ, c.Function
	return json.Marshal(fields)
}

// StreamOptions asks a streaming server for the usage in a last chunk.
type StreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// Request is one chat completion request.
type Request struct {
	Model    string        `json:"model"`
	Messages []Message     `json:"messages"`
	Tools    []openai.Tool `json:"tools,omitempty"`
	// ToolChoice is "auto" (the servers' default when left out),
	// "required" or "none".
	ToolChoice    string         `json:"tool_choice,omitempty"`
	Stream        bool           `json:"stream,omitempty"`
	StreamOptions *StreamOptions `json:"stream_options,omitempty"`
	// The answer's size bound: servers know one or the other (OpenAI's
	// reasoning models refuse max_tokens, older servers ignore
	// max_completion_tokens); the caller sets the one the server takes.
	MaxTokens           int `json:"max_tokens,omitempty"`
	MaxCompletionTokens int `json:"max_completion_tokens,omitempty"`
}

// wireRequest is a Request as it is sent: its Messages field hides the
// Request's, so the messages are encoded in the same pass as the rest.
// Through Message.MarshalJSON each one was encoded apart, then checked and
// copied again by the outer encoder: a tenth of the bot's CPU a turn.
type wireRequest struct {
	Request
	Messages []wireMessage `json:"messages"`
}

// encode is the request's JSON body.
func (r Request) encode() ([]byte, error) {
	w := wireRequest{Request: r, Messages: make([]wireMessage, len(r.Messages))}
	for i, m := range r.Messages {
		w.Messages[i] = m.wire()
	}
	return json.Marshal(w)
}

// Usage is what the server says a call cost.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// Finish reasons the caller acts on; others ("stop", "eos", ...) end an answer normally.
const (
	FinishStop          = "stop"
	FinishToolCalls     = "tool_calls"
	FinishLength        = "length"
	FinishContentFilter = "content_filter"
	FinishError         = "error"
)

// Response is the answer of a call, streamed or not, put together.
type Response struct {
	Model   string
	Message Message // role assistant; Content without reasoning
	// Reasoning is the model's thinking: from reasoning_content or
	// reasoning fields, or <think>/<thought> blocks in the content.
	Reasoning     string
	ReasoningFrom string // "reasoning_content", "reasoning" or "tags"; "" when none
	FinishReason  string
	Usage         *Usage // nil when the server sent none
	// AnswerCut is set when the answer went past Limits.AnswerBytes and the
	// rest was not read (FinishReason is then "length").
	AnswerCut bool
	// Oversized names the tool calls whose arguments went past
	// Limits.ToolArgumentBytes: their arguments are not kept.
	Oversized map[string]bool
}

// Delta is a piece of a streamed answer.
type Delta struct {
	Content   string
	Reasoning string
	// Reset says the content given so far was thinking, not the answer (a
	// model whose template opens <think> in the prompt only closes it).
	Reset bool
}
