// Package websearch asks a web search provider for the pages that match a
// query: a self-hosted SearXNG (its JSON API), Brave Search or Tavily.
// Everything a provider answers is outside text: it is bounded here (the
// body read, the results kept, each field's length) and cleaned of control
// characters, and the agent shows it to the model as outside content.
package websearch

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Config is which provider is asked and where. The first one configured
// of SearXNG, Brave and Tavily is used.
type Config struct {
	SearXNGURL   string // SEARXNG_URL: the SearXNG instance, e.g. http://127.0.0.1:8888
	BraveAPIKey  string // BRAVE_API_KEY
	BraveURL     string // BRAVE_SEARCH_URL: Brave's web search endpoint
	TavilyAPIKey string // TAVILY_API_KEY
	TavilyURL    string // TAVILY_SEARCH_URL: Tavily's search endpoint
	// Timeout bounds one search, the answer's body included.
	Timeout time.Duration
}

// DefaultConfig is no provider, and the providers' public endpoints.
func DefaultConfig() Config {
	return Config{
		BraveURL:  "https://api.search.brave.com/res/v1/web/search",
		TavilyURL: "https://api.tavily.com/search",
		Timeout:   15 * time.Second,
	}
}

// Bounds on what a provider's answer may bring.
const (
	MaxResults   = 10      // results a search returns at most
	maxBody      = 1 << 20 // bytes of an answer read; a longer one is an error
	maxTitle     = 200     // runes of a title
	maxSnippet   = 500     // runes of a snippet
	maxURL       = 2048    // bytes of a result's URL; a longer one is dropped
	maxErrorBody = 300     // bytes of a failed answer quoted in its error
)

// Result is one page a search found.
type Result struct {
	Title, URL, Snippet string
}

// Searcher searches the web through one provider.
type Searcher struct {
	provider string
	request  func(ctx context.Context, query string) (*http.Request, error)
	parse    func(body []byte) ([]Result, error)
	client   *http.Client
}

// New returns the searcher of the first provider cfg configures, or nil
// when it configures none.
func New(cfg Config) *Searcher {
	client := &http.Client{Timeout: cmp.Or(cfg.Timeout, DefaultConfig().Timeout)}
	switch {
	case cfg.SearXNGURL != "":
		return &Searcher{provider: "SearXNG", client: client, parse: parseSearXNG,
			request: func(ctx context.Context, query string) (*http.Request, error) {
				u := strings.TrimRight(cfg.SearXNGURL, "/") + "/search?" + url.Values{"q": {query}, "format": {"json"}}.Encode()
				return http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
			}}
	case cfg.BraveAPIKey != "":
		return &Searcher{provider: "Brave", client: client, parse: parseBrave,
			request: func(ctx context.Context, query string) (*http.Request, error) {
				u := cmp.Or(cfg.BraveURL, DefaultConfig().BraveURL) + "?" +
					url.Values{"q": {query}, "count": {strconv.Itoa(MaxResults)}}.Encode()
				req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
				if err == nil {
					req.Header.Set("X-Subscription-Token", cfg.BraveAPIKey)
				}
				return req, err
			}}
	case cfg.TavilyAPIKey != "":
		return &Searcher{provider: "Tavily", client: client, parse: parseTavily,
			request: func(ctx context.Context, query string) (*http.Request, error) {
				body, _ := json.Marshal(map[string]any{"query": query, "max_results": MaxResults})
				req, err := http.NewRequestWithContext(ctx, http.MethodPost, cmp.Or(cfg.TavilyURL, DefaultConfig().TavilyURL), bytes.NewReader(body))
				if err == nil {
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Authorization", "Bearer "+cfg.TavilyAPIKey)
				}
				return req, err
			}}
	}
	return nil
}

// StatusError is a provider's answer with a status other than 200 OK.
type StatusError struct {
	Provider string
	Code     int
	Status   string // "401 Unauthorized"
	Body     string // the start of the answer, cleaned
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("%s answered %s: %s", e.Provider, e.Status, e.Body)
}

// HTTPStatus is the status and the provider's answer (internal/netcause).
func (e *StatusError) HTTPStatus() (int, string) { return e.Code, e.Body }

// Provider names the provider asked, for the log and the model.
func (s *Searcher) Provider() string { return s.provider }

// Search returns at most MaxResults pages that match query, cleaned and
// bounded. A provider that is down, slow or answers nonsense is an error
// that says so without quoting more than a little of its answer.
func (s *Searcher) Search(ctx context.Context, query string) ([]Result, error) {
	req, err := s.request(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.provider, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s is unreachable: %w", s.provider, errors.Unwrap(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, fmt.Errorf("%s: read the answer: %w", s.provider, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, &StatusError{Provider: s.provider, Code: resp.StatusCode, Status: resp.Status, Body: clean(string(body), maxErrorBody)}
	}
	if len(body) > maxBody {
		return nil, fmt.Errorf("%s answered more than %d bytes", s.provider, maxBody)
	}
	found, err := s.parse(body)
	if err != nil {
		return nil, fmt.Errorf("%s answered what is not its JSON: %w", s.provider, err)
	}
	var results []Result
	for _, r := range found {
		u, err := url.Parse(strings.TrimSpace(r.URL))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(r.URL) > maxURL {
			continue // not a page the model could open
		}
		results = append(results, Result{Title: clean(r.Title, maxTitle), URL: u.String(), Snippet: clean(r.Snippet, maxSnippet)})
		if len(results) == MaxResults {
			break
		}
	}
	return results, nil
}

func parseSearXNG(body []byte) ([]Result, error) {
	var answer struct {
		Results []struct{ Title, URL, Content string } `json:"results"`
	}
	err := json.Unmarshal(body, &answer)
	var out []Result
	for _, r := range answer.Results {
		out = append(out, Result{Title: r.Title, URL: r.URL, Snippet: r.Content})
	}
	return out, err
}

func parseBrave(body []byte) ([]Result, error) {
	var answer struct {
		Web struct {
			Results []struct{ Title, URL, Description string } `json:"results"`
		} `json:"web"`
	}
	err := json.Unmarshal(body, &answer)
	var out []Result
	for _, r := range answer.Web.Results {
		out = append(out, Result{Title: r.Title, URL: r.URL, Snippet: r.Description})
	}
	return out, err
}

func parseTavily(body []byte) ([]Result, error) {
	var answer struct {
		Results []struct{ Title, URL, Content string } `json:"results"`
	}
	err := json.Unmarshal(body, &answer)
	var out []Result
	for _, r := range answer.Results {
		out = append(out, Result{Title: r.Title, URL: r.URL, Snippet: r.Content})
	}
	return out, err
}

// clean returns s as one line of at most max runes: tags (Brave marks the
// matched words with <strong>) and control and format characters (line
// breaks, bidi overrides, zero-width ones) are removed, runs of spaces
// folded, entities decoded.
func clean(s string, max int) string {
	s = strings.ToValidUTF8(html.UnescapeString(s), "")
	var b strings.Builder
	inTag, space, n := false, false, 0
	for _, r := range s {
		switch {
		case r == '<':
			inTag = true
			continue
		case inTag:
			inTag = r != '>'
			continue
		case unicode.In(r, unicode.Cf): // bidi overrides, zero-width characters
			continue
		case unicode.IsSpace(r) || unicode.IsControl(r):
			space = b.Len() > 0
			continue
		}
		if n == max {
			b.WriteString("…")
			break
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}
