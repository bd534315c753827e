package openaifake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/sashabaranov/go-openai"
)

// What a server with a key and a list of models answers
// (platform.openai.com/docs/api-reference/models): GET /v1/models lists
// {"object": "list", "data": [{"id", "object": "model", ...}]}; a request
// without the key is refused with 401 invalid_api_key, one for a model the
// server lacks with 404 model_not_found. By default the fake takes any key
// and any model, and does not serve /v1/models (as some servers do not).

type access struct {
	mu     sync.Mutex
	key    string   // "" takes any
	models []string // nil: any model, and no /v1/models
}

// RequireKey refuses, with 401, every request that does not carry key as
// its bearer token.
func (s *Server) RequireKey(key string) {
	s.access.mu.Lock()
	defer s.access.mu.Unlock()
	s.access.key = key
}

// HasModels serves /v1/models with these models and refuses, with 404, a
// chat request for any other.
func (s *Server) HasModels(names ...string) {
	s.access.mu.Lock()
	defer s.access.mu.Unlock()
	s.access.models = slices.Clone(names)
}

// refuseKey answers 401 to a request without the key; false when it has it.
func (s *Server) refuseKey(w http.ResponseWriter, r *http.Request) bool {
	s.access.mu.Lock()
	key := s.access.key
	s.access.mu.Unlock()
	if key == "" || r.Header.Get("Authorization") == "Bearer "+key || strings.HasPrefix(r.URL.Path, imageFilePrefix) {
		return false
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusUnauthorized)
	fmt.Fprint(w, `{"error":{"message":"Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`)
	return true
}

// serveModels answers GET /v1/models when the fake has a list; false for
// any other request.
func (s *Server) serveModels(w http.ResponseWriter, r *http.Request) bool {
	s.access.mu.Lock()
	models := s.access.models
	s.access.mu.Unlock()
	if r.URL.Path != "/v1/models" || models == nil {
		return false
	}
	data := []map[string]any{}
	for _, m := range models {
		data = append(data, map[string]any{"id": m, "object": "model", "created": 1700000000, "owned_by": "openaifake"})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
	return true
}

// unknownModel answers 404 to a request for a model the fake lacks.
func (s *Server) unknownModel(w http.ResponseWriter, model string) bool {
	s.access.mu.Lock()
	models := s.access.models
	s.access.mu.Unlock()
	if models == nil || slices.Contains(models, model) {
		return false
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	fmt.Fprintf(w, `{"error":{"message":"The model %s does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}`, "`"+model+"`")
	return true
}

// toolChoice is tool_choice as go-openai holds it: a string ("auto",
// "required", "none") or the object naming a function.
func toolChoice(raw json.RawMessage) any {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var named openai.ToolChoice
	if json.Unmarshal(raw, &named) == nil && named.Function.Name != "" {
		return named
	}
	return nil
}

// requiredCall is the call a model makes when tool_choice requires one:
// of the function named, or else of the first tool offered, with no
// arguments.
func requiredCall(req openai.ChatCompletionRequest) (openai.ToolCall, bool) {
	if len(req.Tools) == 0 {
		return openai.ToolCall{}, false
	}
	switch c := req.ToolChoice.(type) {
	case string:
		if c == "required" {
			return ToolCall("call_required", req.Tools[0].Function.Name, "{}"), true
		}
	case openai.ToolChoice:
		return ToolCall("call_required", c.Function.Name, "{}"), true
	}
	return openai.ToolCall{}, false
}
