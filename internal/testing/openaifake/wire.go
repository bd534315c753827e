package openaifake

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/sashabaranov/go-openai"
)

// wireRequest is the part of a chat completion request the fake looks at.
// Decoding into it rather than into openai.ChatCompletionRequest halves the
// fake's CPU time under load: go-openai's message type decodes each message
// twice (to tell text from multi-part content), and the tools' JSON schemas
// would become maps nobody reads.
type wireRequest struct {
	Model    string        `json:"model"`
	Messages []wireMessage `json:"messages"`
	Tools    []struct {
		Type     openai.ToolType `json:"type"`
		Function struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		} `json:"function"`
	} `json:"tools"`
	Stream              bool                  `json:"stream"`
	StreamOptions       *openai.StreamOptions `json:"stream_options"`
	MaxTokens           int                   `json:"max_tokens"`
	MaxCompletionTokens int                   `json:"max_completion_tokens"`
	ToolChoice          json.RawMessage       `json:"tool_choice"`
}

type wireMessage struct {
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"` // a string, or a list of parts
	Name             string          `json:"name"`
	ToolCalls        []wireToolCall  `json:"tool_calls"`
	ToolCallID       string          `json:"tool_call_id"`
	ReasoningContent string          `json:"reasoning_content"`
}

type wireToolCall struct {
	ID           string              `json:"id"`
	Type         openai.ToolType     `json:"type"`
	Function     openai.FunctionCall `json:"function"`
	ExtraContent *struct {
		Google struct {
			ThoughtSignature string `json:"thought_signature"`
		} `json:"google"`
	} `json:"extra_content"`
}

func (c wireToolCall) signature() string {
	if c.ExtraContent == nil {
		return ""
	}
	return c.ExtraContent.Google.ThoughtSignature
}

// decodeRequest reads a request body into the go-openai type the fake's
// users see (a multi-part content as MultiContent, with its text parts
// also joined in Content), without the tools' parameter schemas.
func decodeRequest(body io.Reader) (openai.ChatCompletionRequest, wireRequest, error) {
	var w wireRequest
	if err := json.NewDecoder(body).Decode(&w); err != nil {
		return openai.ChatCompletionRequest{}, w, err
	}
	req := openai.ChatCompletionRequest{Model: w.Model, Stream: w.Stream, StreamOptions: w.StreamOptions,
		//lint:ignore SA1019 the fake reads max_tokens as older clients still send it
		MaxTokens: w.MaxTokens, MaxCompletionTokens: w.MaxCompletionTokens, ToolChoice: toolChoice(w.ToolChoice),
		Messages: make([]openai.ChatCompletionMessage, len(w.Messages))}
	for i, m := range w.Messages {
		msg := openai.ChatCompletionMessage{Role: m.Role, Name: m.Name, ToolCallID: m.ToolCallID, ReasoningContent: m.ReasoningContent}
		if err := decodeContent(m.Content, &msg); err != nil {
			return req, w, err
		}
		for _, c := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, openai.ToolCall{ID: c.ID, Type: c.Type, Function: c.Function})
		}
		req.Messages[i] = msg
	}
	for _, t := range w.Tools {
		req.Tools = append(req.Tools, openai.Tool{Type: t.Type,
			Function: &openai.FunctionDefinition{Name: t.Function.Name, Description: t.Function.Description}})
	}
	return req, w, nil
}

func decodeContent(raw json.RawMessage, msg *openai.ChatCompletionMessage) error {
	if len(raw) == 0 || raw[0] != '[' {
		if len(raw) == 0 || string(raw) == "null" {
			return nil
		}
		return json.Unmarshal(raw, &msg.Content)
	}
	if err := json.Unmarshal(raw, &msg.MultiContent); err != nil {
		return err
	}
	var text []string
	for _, p := range msg.MultiContent {
		if p.Type == openai.ChatMessagePartTypeText {
			text = append(text, p.Text)
		}
	}
	msg.Content = strings.Join(text, "\n")
	return nil
}
