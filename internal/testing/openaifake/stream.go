package openaifake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/sashabaranov/go-openai"
)

// stream answers with server-sent events: a role chunk, the content in
// pieces (with the thinking before it, as the dialect gives it), each tool
// call in fragments, the finish reason, the usage when the dialect sends
// it, and data: [DONE].
func (s *Server) stream(w http.ResponseWriter, r *http.Request, req openai.ChatCompletionRequest, reply Reply) {
	d := s.dialect
	if reply.Gone != nil {
		defer func() {
			if r.Context().Err() != nil { // the client closed the request mid-stream
				close(reply.Gone)
			}
		}()
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	flusher, _ := w.(http.Flusher)
	created := time.Now().Unix()
	sent := 0
	write := func(line string) bool {
		if _, err := fmt.Fprint(w, line); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return true
	}
	send := func(chunk map[string]any) bool {
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
		chunk["id"], chunk["object"], chunk["created"], chunk["model"] = "chatcmpl-fake", "chat.completion.chunk", created, req.Model
		data, _ := json.Marshal(chunk)
		sent++
		return write("data: " + string(data) + "\n\n")
	}
	delta := func(d map[string]any, finish string) map[string]any {
		var f any
		if finish != "" {
			f = finish
		}
		return map[string]any{"choices": []map[string]any{{"index": 0, "delta": d, "finish_reason": f}}}
	}

	if d.Comments && !write(": OPENROUTER PROCESSING\n\n: OPENROUTER PROCESSING\n\n") {
		return
	}
	if !send(delta(map[string]any{"role": "assistant", "content": ""}, "")) {
		return
	}
	content, reasoning := d.content(reply)
	if reasoning != nil {
		for _, piece := range cut(reasoning.text, 8) {
			if !send(delta(map[string]any{reasoning.field: piece}, "")) {
				return
			}
		}
	}
	pieces := cut(content, 8)
	if reply.Chunks != nil && content == reply.Content {
		pieces = reply.Chunks
	}
	if reply.Status >= 500 { // ErrorsInStream: part of the answer, then the error
		pieces = pieces[:len(pieces)/2]
	}
	for _, piece := range pieces {
		if !send(delta(map[string]any{"content": piece}, "")) {
			return
		}
	}
	if reply.Status >= 500 {
		chunk := delta(map[string]any{"content": ""}, "error")
		chunk["error"] = map[string]any{"code": reply.Status, "message": "Provider returned error", "metadata": map[string]any{"provider_name": "fake"}}
		send(chunk)
		return
	}
	for i, call := range reply.ToolCalls {
		if d.ToolCallsWhole {
			if !send(delta(map[string]any{"tool_calls": []map[string]any{d.toolCall(nil, call)}}, "")) {
				return
			}
			continue
		}
		for j, fragment := range toolCallFragments(i, call) {
			f := map[string]any{"index": i, "function": map[string]any{"arguments": fragment.Function.Arguments}}
			if j == 0 {
				f = d.toolCall(&i, fragment)
			}
			if !send(delta(map[string]any{"tool_calls": []map[string]any{f}}, "")) {
				return
			}
		}
	}
	finish := delta(map[string]any{}, d.finish(reply))
	u := usage(req, reply)
	switch d.StreamUsage {
	case "always":
		finish["usage"] = u
	case "x_groq":
		finish["x_groq"] = map[string]any{"usage": u}
	}
	if !send(finish) {
		return
	}
	if (d.StreamUsage == "" || d.StreamUsage == "options") && req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		if !send(map[string]any{"choices": []any{}, "usage": u}) {
			return
		}
	}
	write("data: [DONE]\n\n")
}

// toolCallFragments cuts a tool call the way OpenAI streams it: the first
// fragment has the index, id, type and name; the arguments follow in pieces
// that carry only the index.
func toolCallFragments(index int, call openai.ToolCall) []openai.ToolCall {
	// Token-sized pieces, but no more than about 500 of them: a hostile
	// 200 KB argument in 5-byte pieces made one test spend 14 s in JSON.
	pieces := cut(call.Function.Arguments, max(5, len(call.Function.Arguments)/500))
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
