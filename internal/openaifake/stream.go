package openaifake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/sashabaranov/go-openai"
)

// stream answers with server-sent events: a role chunk, the content in
// pieces, each tool call in fragments, the finish reason, the usage when
// stream_options.include_usage asks for it, and data: [DONE].
func (s *Server) stream(w http.ResponseWriter, r *http.Request, req openai.ChatCompletionRequest, reply Reply) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	flusher, _ := w.(http.Flusher)
	created := time.Now().Unix()
	sent := 0
	send := func(chunk openai.ChatCompletionStreamResponse) bool {
		if reply.CutAfter > 0 && sent >= reply.CutAfter {
			return false
		}
		if reply.ChunkDelay > 0 && sent > 0 {
			select {
			case <-time.After(reply.ChunkDelay):
			case <-r.Context().Done():
				return false
			}
		}
		if reply.Hold != nil && sent == reply.HoldAfter {
			select {
			case <-reply.Hold:
			case <-r.Context().Done():
				return false
			}
		}
		chunk.ID, chunk.Object, chunk.Created, chunk.Model = "chatcmpl-fake", "chat.completion.chunk", created, req.Model
		data, _ := json.Marshal(chunk)
		if _, err := fmt.Fprintf(w, "data: %s\n\n", data); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		sent++
		return true
	}
	delta := func(d openai.ChatCompletionStreamChoiceDelta, finish openai.FinishReason) openai.ChatCompletionStreamResponse {
		return openai.ChatCompletionStreamResponse{Choices: []openai.ChatCompletionStreamChoice{{Index: 0, Delta: d, FinishReason: finish}}}
	}

	if !send(delta(openai.ChatCompletionStreamChoiceDelta{Role: openai.ChatMessageRoleAssistant}, "")) {
		return
	}
	for _, piece := range contentChunks(reply) {
		if !send(delta(openai.ChatCompletionStreamChoiceDelta{Content: piece}, "")) {
			return
		}
	}
	for i, call := range reply.ToolCalls {
		for _, fragment := range toolCallFragments(i, call) {
			if !send(delta(openai.ChatCompletionStreamChoiceDelta{ToolCalls: []openai.ToolCall{fragment}}, "")) {
				return
			}
		}
	}
	finish := openai.FinishReasonStop
	if len(reply.ToolCalls) > 0 {
		finish = openai.FinishReasonToolCalls
	}
	if !send(delta(openai.ChatCompletionStreamChoiceDelta{}, finish)) {
		return
	}
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		u := usage(req, reply)
		if !send(openai.ChatCompletionStreamResponse{Choices: []openai.ChatCompletionStreamChoice{}, Usage: &u}) {
			return
		}
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// contentChunks cuts the content into the pieces to send.
func contentChunks(reply Reply) []string {
	if reply.Chunks != nil {
		return reply.Chunks
	}
	return cut(reply.Content, 8)
}

// toolCallFragments cuts a tool call the way OpenAI streams it: the first
// fragment has the index, id, type and name; the arguments follow in pieces
// that carry only the index.
func toolCallFragments(index int, call openai.ToolCall) []openai.ToolCall {
	pieces := cut(call.Function.Arguments, 5)
	if len(pieces) == 0 {
		pieces = []string{""}
	}
	fragments := []openai.ToolCall{{Index: &index, ID: call.ID, Type: openai.ToolTypeFunction,
		Function: openai.FunctionCall{Name: call.Function.Name, Arguments: pieces[0]}}}
	for _, p := range pieces[1:] {
		fragments = append(fragments, openai.ToolCall{Index: &index, Function: openai.FunctionCall{Arguments: p}})
	}
	return fragments
}

// cut splits s into pieces of at most n characters.
func cut(s string, n int) []string {
	var pieces []string
	runes := []rune(s)
	for len(runes) > 0 {
		k := min(n, len(runes))
		pieces = append(pieces, string(runes[:k]))
		runes = runes[k:]
	}
	return pieces
}
