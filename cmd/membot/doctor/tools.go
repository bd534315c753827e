package doctor

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/agent/mcptools"
	"github.com/membot/membot/agent/tools"
	"github.com/membot/membot/agent/websearch"
	"github.com/membot/membot/internal/netcause"
)

// mcp starts each MCP server at once, as the bot would, lists its tools
// and stops it; then it weighs every tool's definition, the built-in ones
// included, against CONTEXT_TOKENS: they go with every request.
func (d *doctor) mcp(ctx context.Context) []Line {
	servers := d.cfg.MCPServers
	if len(servers) == 0 {
		return []Line{unset("mcp", "MCP_SERVERS is not set: no MCP tools")}
	}
	found := make([][]agent.Tool, len(servers))
	lines := make([]Line, len(servers))
	var wg sync.WaitGroup
	for i, srv := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			part := fmt.Sprintf("mcp %s (%s)", srv.Name, srv.Transport())
			stderr := &stderrTail{next: d.log.Handler(), lines: new([]string), mu: new(sync.Mutex)}
			offered, err := mcptools.Probe(ctx, srv, tools.Names(), slog.New(stderr))
			if err != nil {
				text := err.Error()
				if said := stderr.said(); said != "" {
					text += "; it said: " + said
				}
				lines[i] = failed(part, text, "check its entry in MCP_SERVERS (the command and its arguments, or the url); "+
					"run the command by hand to see it start")
				return
			}
			_, tokens := agent.NewRegistry(offered...).Definitions()
			found[i] = offered
			lines[i] = ok(part, "started; %d %s, ~%d tokens of definitions", len(offered), plural(len(offered), "tool", "tools"), tokens)
		}()
	}
	wg.Wait()
	all := tools.Builtin(d.cfg.Tools)
	builtin := len(all)
	for _, f := range found {
		all = append(all, f...)
	}
	_, tokens := agent.NewRegistry(all...).Definitions()
	budget := d.cfg.Agent.ContextTokens / 2
	text := fmt.Sprintf("%d built-in and %d MCP tools: ~%d tokens with every request, of CONTEXT_TOKENS %d",
		builtin, len(all)-builtin, tokens, d.cfg.Agent.ContextTokens)
	if tokens > budget {
		lines = append(lines, failed("tool definitions", text+": more than half, so the model sees little history",
			"raise CONTEXT_TOKENS, or offer fewer MCP servers or tools"))
	} else {
		lines = append(lines, ok("tool definitions", "%s", text))
	}
	return lines
}

// webSearch asks the provider web_search uses one small query.
func (d *doctor) webSearch(ctx context.Context) []Line {
	cfg := d.cfg.WebSearch
	searcher := websearch.New(cfg)
	if searcher == nil {
		return []Line{unset("web search", "none set (SEARXNG_URL, BRAVE_API_KEY or TAVILY_API_KEY): web_search is not offered")}
	}
	part := "web search " + searcher.Provider()
	service := map[string]netcause.Service{
		"SearXNG": {Name: "SearXNG", URLSetting: "SEARXNG_URL"},
		"Brave":   {Name: "Brave", URLSetting: "BRAVE_SEARCH_URL", KeySetting: "BRAVE_API_KEY"},
		"Tavily":  {Name: "Tavily", URLSetting: "TAVILY_SEARCH_URL", KeySetting: "TAVILY_API_KEY"},
	}[searcher.Provider()]
	results, err := searcher.Search(ctx, "membot")
	if err != nil {
		return []Line{because(part, netcause.Explain(err, service))}
	}
	return []Line{ok(part, "answered a query with %d %s", len(results), plural(len(results), "result", "results"))}
}

// stderrTail keeps the last lines a stdio MCP server wrote to its stderr
// (mcptools logs each as "MCP server stderr"): why it did not start is
// often there. Every record goes on to next as well.
type stderrTail struct {
	next  slog.Handler
	mu    *sync.Mutex
	lines *[]string
}

// keptLines is how many of the last lines are kept.
const keptLines = 3

func (h *stderrTail) Enabled(context.Context, slog.Level) bool { return true }

func (h *stderrTail) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == "MCP server stderr" {
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "line" {
				h.mu.Lock()
				*h.lines = append(*h.lines, a.Value.String())
				if len(*h.lines) > keptLines {
					*h.lines = (*h.lines)[1:]
				}
				h.mu.Unlock()
			}
			return true
		})
	}
	if h.next.Enabled(ctx, r.Level) {
		return h.next.Handle(ctx, r)
	}
	return nil
}

func (h *stderrTail) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &stderrTail{next: h.next.WithAttrs(attrs), mu: h.mu, lines: h.lines}
}

func (h *stderrTail) WithGroup(name string) slog.Handler {
	return &stderrTail{next: h.next.WithGroup(name), mu: h.mu, lines: h.lines}
}

// said is the lines kept, joined. A process that has just ended may
// still have its last words in the pipe: they are given a moment.
func (h *stderrTail) said() string {
	for deadline := time.Now().Add(200 * time.Millisecond); ; time.Sleep(10 * time.Millisecond) {
		h.mu.Lock()
		lines := strings.Join(*h.lines, " / ")
		h.mu.Unlock()
		if lines != "" || time.Now().After(deadline) {
			return lines
		}
	}
}
