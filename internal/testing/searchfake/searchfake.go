// Package searchfake is a web search provider for tests, speaking the wire
// formats of the three the bot can ask: SearXNG's JSON API
// (GET /search?q=…&format=json), Brave Search's web search
// (GET /res/v1/web/search?q=…&count=N with X-Subscription-Token) and
// Tavily's (POST /search with a JSON body and a Bearer key).
package searchfake

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"
)

// Result is one page the fake finds.
type Result struct{ Title, URL, Snippet string }

// Server is the fake provider.
type Server struct {
	*httptest.Server
	Key string // the API key Brave's and Tavily's endpoints want

	mu      sync.Mutex
	results []Result
	status  int           // answered instead of results when not 0
	delay   time.Duration // waited before answering
	body    []byte        // answered as it is when not nil
	queries []string
}

// New starts a fake provider that wants key, finding nothing until told.
func New(key string) *Server {
	s := &Server{Key: key}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /search", s.searxng)
	mux.HandleFunc("GET /res/v1/web/search", s.brave)
	mux.HandleFunc("POST /search", s.tavily)
	s.Server = httptest.NewServer(mux)
	return s
}

// Find makes every search find results.
func (s *Server) Find(results ...Result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.results = results
}

// Fail makes every search answer status (0: answer again).
func (s *Server) Fail(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status = status
}

// Delay makes every answer wait d first.
func (s *Server) Delay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = d
}

// Answer makes every search answer body as it is (nil: results again).
func (s *Server) Answer(body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.body = body
}

// Queries are the queries asked so far.
func (s *Server) Queries() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.queries...)
}

// answer records query and writes what the fake is told to, with the
// results in the shape wrap gives them.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, query string, wrap func([]Result) any) {
	s.mu.Lock()
	s.queries = append(s.queries, query)
	results, status, delay, body := s.results, s.status, s.delay, s.body
	s.mu.Unlock()
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	}
	switch {
	case status != 0:
		http.Error(w, `{"error":"the fake is down"}`, status)
	case body != nil:
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	default:
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(wrap(results))
	}
}

func (s *Server) searxng(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("format") != "json" {
		http.Error(w, "only the HTML format is on", http.StatusForbidden) // as SearXNG without json in search.formats
		return
	}
	s.answer(w, r, r.URL.Query().Get("q"), func(results []Result) any {
		type row struct {
			URL     string `json:"url"`
			Title   string `json:"title"`
			Content string `json:"content"`
			Engine  string `json:"engine"`
		}
		rows := []row{}
		for _, x := range results {
			rows = append(rows, row{x.URL, x.Title, x.Snippet, "fake"})
		}
		return map[string]any{"query": r.URL.Query().Get("q"), "number_of_results": len(rows), "results": rows}
	})
}

func (s *Server) brave(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("X-Subscription-Token") != s.Key {
		http.Error(w, `{"type":"ErrorResponse","error":{"code":"SUBSCRIPTION_TOKEN_INVALID"}}`, http.StatusUnauthorized)
		return
	}
	s.answer(w, r, r.URL.Query().Get("q"), func(results []Result) any {
		type row struct {
			Title       string `json:"title"`
			URL         string `json:"url"`
			Description string `json:"description"`
		}
		rows := []row{}
		for _, x := range results {
			rows = append(rows, row{x.Title, x.URL, x.Snippet})
		}
		return map[string]any{"type": "search", "web": map[string]any{"type": "search", "results": rows}}
	})
}

func (s *Server) tavily(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer "+s.Key {
		http.Error(w, `{"detail":{"error":"Unauthorized: missing or invalid API key."}}`, http.StatusUnauthorized)
		return
	}
	var req struct {
		Query      string `json:"query"`
		MaxResults int    `json:"max_results"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req); err != nil {
		http.Error(w, `{"detail":{"error":"bad request"}}`, http.StatusBadRequest)
		return
	}
	s.answer(w, r, req.Query, func(results []Result) any {
		type row struct {
			Title   string  `json:"title"`
			URL     string  `json:"url"`
			Content string  `json:"content"`
			Score   float64 `json:"score"`
		}
		rows := []row{}
		for i, x := range results {
			if req.MaxResults > 0 && i == req.MaxResults {
				break
			}
			rows = append(rows, row{x.Title, x.URL, x.Snippet, 0.9})
		}
		return map[string]any{"query": req.Query, "results": rows, "response_time": 0.1}
	})
}
