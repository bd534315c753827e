// Package openaifake is an in-process fake of the OpenAI chat completions
// API for tests and benchmarks. It records every request (unless told not to) and answers from a
// script: text, tool calls, or an HTTP error. Requests with "stream": true
// get the answer as server-sent events, chunk by chunk, the way OpenAI
// streams: text in pieces, tool calls in fragments tied together by index.
package openaifake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/membot/membot/internal/stamp"
	"github.com/sashabaranov/go-openai"
)

// Reply is one scripted answer. Exactly one of Content, ToolCalls, Status
// (an HTTP error, with Raw as its body when set) or Raw (a body sent as is)
// is used, in that order of priority: Status, Raw, ToolCalls, Content.
type Reply struct {
	Content   string
	ToolCalls []openai.ToolCall
	Status    int    // e.g. 429 or 500
	Raw       string // e.g. malformed JSON
	Delay     time.Duration
	// Reasoning is the model's thinking, given the way the dialect gives it.
	Reasoning string
	// Finish overrides the finish reason ("length", "content_filter", "error").
	Finish string

	// For streamed answers only:
	// Chunks is how Content is cut into the chunks sent; by default it goes
	// out a few characters at a time. Tool call arguments always come in
	// several fragments.
	Chunks []string
	// Hold, when not nil, pauses the stream after HoldAfter chunks until it
	// is closed, so that a test can see the answer half written.
	Hold      <-chan struct{}
	HoldAfter int
	// CutAfter, when not 0, ends the stream after that many chunks without
	// finishing the answer, as a dropped connection would.
	CutAfter int
	// ChunkDelay is waited before each chunk after the first: a model that
	// writes slowly.
	ChunkDelay time.Duration
	// Gone, when not nil, is closed when the client closes the request
	// before the stream has ended (a stopped answer).
	Gone chan struct{}
}

// ToolCall builds a function call for Reply.ToolCalls.
func ToolCall(id, name, arguments string) openai.ToolCall {
	return openai.ToolCall{ID: id, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: name, Arguments: arguments}}
}

// Server is the fake. By default it echoes the last user message.
type Server struct {
	*httptest.Server

	mu             sync.Mutex
	requests       []openai.ChatCompletionRequest
	script         []Reply
	respond        func(openai.ChatCompletionRequest) Reply
	discard        bool // keep no requests
	dialect        Dialect
	expectBadRoles bool
	refusals       int
	access         access // the key and the models it asks for (models.go)
	audio          audio  // the audio endpoints (audio.go)
	images         images // the image endpoint (images.go)
}

// New starts a fake speaking OpenAI's dialect.
func New() *Server {
	return NewDialect(Dialect{Name: "openai"})
}

// NewDialect starts a fake speaking d.
func NewDialect(d Dialect) *Server {
	s := &Server{dialect: d}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// ExpectBadRoles keeps this fake's requests out of RoleViolations: for a
// test that sends bad requests on purpose.
func (s *Server) ExpectBadRoles() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expectBadRoles = true
}

// Refusals is how many requests the dialect refused (roles, tools, ...).
func (s *Server) Refusals() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refusals
}

// URL is what OPENAI_BASE_URL should be set to.
func (s *Server) URL() string { return s.Server.URL + "/v1" }

// Script queues replies, used one per request before the default.
func (s *Server) Script(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, replies...)
}

// RespondWith sets the default answer for requests the script does not cover.
func (s *Server) RespondWith(fn func(openai.ChatCompletionRequest) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.respond = fn
}

// DiscardRequests stops the fake keeping the requests it gets: a long load
// run would otherwise hold every one of them.
func (s *Server) DiscardRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.discard = true
}

// Requests returns a copy of the requests received so far.
func (s *Server) Requests() []openai.ChatCompletionRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]openai.ChatCompletionRequest(nil), s.requests...)
}

// LastUserContent is the content of the request's last user message.
func LastUserContent(req openai.ChatCompletionRequest) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == openai.ChatMessageRoleUser {
			return req.Messages[i].Content
		}
	}
	return ""
}

// Echo answers "echo: " and the newest message of the last user message
// (several unanswered ones are merged into one), without its time stamp.
func Echo(req openai.ChatCompletionRequest) Reply {
	text := LastUserContent(req)
	if i := stamp.Index(text); i >= 0 {
		text = text[i:]
	}
	return Reply{Content: "echo: " + stamp.Strip(text)}
}

// ThinkingModel answers like a model behind any server, for RespondWith:
// asked to calculate, it calls the calculator (when offered tools); given
// the result, it answers with it; asked to fail, its server fails (503);
// otherwise it echoes. It always thinks first. Only the newest of merged
// unanswered messages counts.
func ThinkingModel(req openai.ChatCompletionRequest) Reply {
	last := req.Messages[len(req.Messages)-1]
	newest := last.Content[strings.LastIndex(last.Content, "\n\n")+1:]
	switch {
	case last.Role == openai.ChatMessageRoleTool:
		return Reply{Reasoning: "The tool said " + last.Content + ".", Content: "The result is " + last.Content + "."}
	case strings.Contains(newest, "calculate") && len(req.Tools) > 0:
		return Reply{Reasoning: "I should use the calculator.",
			ToolCalls: []openai.ToolCall{ToolCall("call_calc", "calculator", `{"expression": "6*7"}`)}}
	case strings.Contains(newest, "fail"):
		return Reply{Status: 503}
	}
	r := Echo(req)
	r.Reasoning = "Nothing to do but echo."
	return r
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if s.refuseKey(w, r) || s.serveModels(w, r) {
		return
	}
	if s.serveAudio(w, r) || s.serveImages(w, r) {
		return
	}
	if r.URL.Path == "/v1/embeddings" {
		s.serveEmbeddings(w, r) // embeddings.go
		return
	}
	if r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	req, wire, err := decodeRequest(r.Body)
	if err != nil {
		http.Error(w, `{"error":{"message":"bad json","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	if s.unknownModel(w, req.Model) {
		return
	}
	s.mu.Lock()
	if !s.discard {
		s.requests = append(s.requests, req)
	}
	rolesErr := CheckRoles(req.Messages)
	if rolesErr != nil && !s.expectBadRoles {
		recordViolation(fmt.Sprintf("%s: %v: %s", s.dialect.Name, rolesErr, describeRoles(req.Messages)))
	}
	refusal := s.dialect.refuse(wire)
	if refusal == nil && rolesErr != nil && s.dialect.StrictRoles {
		refusal = rolesRefusal
	}
	if refusal != nil { // a refused request uses no scripted reply
		s.refusals++
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(refusal.Status)
		fmt.Fprint(w, refusal.Body)
		return
	}
	var reply Reply
	switch {
	case len(s.script) > 0:
		reply, s.script = s.script[0], s.script[1:]
	case s.respond != nil:
		reply = s.respond(req)
	default:
		reply = Echo(req)
		if call, ok := requiredCall(req); ok { // as OpenAI does: tool_choice "required" gets a call
			reply = Reply{ToolCalls: []openai.ToolCall{call}}
		}
	}
	s.mu.Unlock()

	if reply.Delay > 0 {
		select {
		case <-time.After(reply.Delay):
		case <-r.Context().Done():
			return
		}
	}
	streamFailure := s.dialect.ErrorsInStream && reply.Status >= 500
	if req.Stream && (reply.Status == 0 || streamFailure) && reply.Raw == "" {
		s.stream(w, r, req, reply)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	switch {
	case reply.Status != 0 && reply.Raw != "":
		w.WriteHeader(reply.Status)
		fmt.Fprint(w, reply.Raw)
	case reply.Status != 0:
		w.WriteHeader(reply.Status)
		fmt.Fprintf(w, `{"error":{"message":"injected failure %d","type":"server_error"}}`, reply.Status)
	case reply.Raw != "":
		fmt.Fprint(w, reply.Raw)
	default:
		content, reasoning := s.dialect.content(reply)
		msg := map[string]any{"role": "assistant", "content": content}
		if reasoning != nil {
			msg[reasoning.field] = reasoning.text
		}
		if len(reply.ToolCalls) > 0 {
			var calls []map[string]any
			for _, c := range reply.ToolCalls {
				calls = append(calls, s.dialect.toolCall(nil, c))
			}
			msg["tool_calls"] = calls
		}
		json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-fake", "object": "chat.completion", "created": time.Now().Unix(), "model": req.Model,
			"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": s.dialect.finish(reply)}},
			"usage":   usage(req, reply),
		})
	}
}

func usage(req openai.ChatCompletionRequest, reply Reply) openai.Usage {
	prompt, completion := 10*len(req.Messages), len(reply.Content)/4+1
	return openai.Usage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion}
}

// reasoningField is thinking given in a field of the message or delta.
type reasoningField struct{ field, text string }

// content is the content of reply as the dialect writes it, and the
// reasoning field that goes with it, if any.
func (d Dialect) content(reply Reply) (string, *reasoningField) {
	if reply.Reasoning == "" {
		return reply.Content, nil
	}
	switch d.Reasoning {
	case "tags":
		return "<think>\n" + reply.Reasoning + "\n</think>\n\n" + reply.Content, nil
	case "close-tag":
		return reply.Reasoning + "\n</think>\n\n" + reply.Content, nil
	case "reasoning_content", "reasoning":
		return reply.Content, &reasoningField{d.Reasoning, reply.Reasoning}
	}
	return reply.Content, nil
}

// toolCall is a call as the dialect writes it; index, when not nil, is
// its index in a stream.
func (d Dialect) toolCall(index *int, c openai.ToolCall) map[string]any {
	call := map[string]any{"id": c.ID, "type": "function",
		"function": map[string]any{"name": c.Function.Name, "arguments": c.Function.Arguments}}
	if index != nil {
		call["index"] = *index
	}
	if d.ThoughtSignatures {
		call["extra_content"] = map[string]any{"google": map[string]any{"thought_signature": signatureOf(c.ID)}}
	}
	return call
}

// finish is the finish reason of a complete reply.
func (d Dialect) finish(reply Reply) string {
	switch {
	case reply.Finish != "":
		return reply.Finish
	case len(reply.ToolCalls) > 0 && d.ToolCallFinish != "":
		return d.ToolCallFinish
	case len(reply.ToolCalls) > 0:
		return "tool_calls"
	}
	return "stop"
}
