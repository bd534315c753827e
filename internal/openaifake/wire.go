package openaifake

import (
	"encoding/json"
	"io"

	"github.com/sashabaranov/go-openai"
)

// wireRequest is the part of a chat completion request the fake looks at.
// Decoding into it rather than into openai.ChatCompletionRequest halves the
// fake's CPU time under load: go-openai's message type decodes each message
// twice (to tell text from multi-part content), and the tools' JSON schemas
// would become maps nobody reads. membot sends text content only.
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
	Stream        bool                  `json:"stream"`
	StreamOptions *openai.StreamOptions `json:"stream_options"`
}

type wireMessage struct {
	Role       string            `json:"role"`
	Content    string            `json:"content"`
	Name       string            `json:"name"`
	ToolCalls  []openai.ToolCall `json:"tool_calls"`
	ToolCallID string            `json:"tool_call_id"`
}

// decodeRequest reads a request body into the go-openai type the fake's
// users see, without the tools' parameter schemas.
func decodeRequest(body io.Reader) (openai.ChatCompletionRequest, error) {
	var w wireRequest
	if err := json.NewDecoder(body).Decode(&w); err != nil {
		return openai.ChatCompletionRequest{}, err
	}
	req := openai.ChatCompletionRequest{Model: w.Model, Stream: w.Stream, StreamOptions: w.StreamOptions,
		Messages: make([]openai.ChatCompletionMessage, len(w.Messages))}
	for i, m := range w.Messages {
		req.Messages[i] = openai.ChatCompletionMessage{Role: m.Role, Content: m.Content, Name: m.Name,
			ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID}
	}
	for _, t := range w.Tools {
		req.Tools = append(req.Tools, openai.Tool{Type: t.Type,
			Function: &openai.FunctionDefinition{Name: t.Function.Name, Description: t.Function.Description}})
	}
	return req, nil
}
