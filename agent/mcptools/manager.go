package mcptools

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/agent/request"
	"github.com/membot/membot/internal/backoff"
)

// Manager runs the MCP servers of the file and offers their tools.
type Manager struct {
	servers  []*server
	offer    func([]agent.Tool)
	reserved []string // the names taken already (the built-in tools)
	budget   int      // the estimated tokens all tools offered may take together
	mu       sync.Mutex
	leftOut  map[string][]string // by server: its tools over the budget, by their names there
	wg       sync.WaitGroup
	ready    chan struct{} // closed once every server was tried once
	log      *slog.Logger
}

// DefaultBudget is the estimated tokens the definitions of all servers'
// tools may take together (MCP_TOOLS_BUDGET): they go into every request,
// so they are held to a quarter of the default CONTEXT_TOKENS, leaving the
// rest to the conversation.
const DefaultBudget = 4000

// Start starts every server in the background: each is started (or
// connected to) and its tools listed, then offered through offer
// (agent.Registry.SetExtra), again whenever a server's list changes, under
// names other than reserved, as many as budget (estimated tokens, for all
// together) holds. A server that fails to start is tried again,
// backing off, until it starts; one that stops later is started again at
// the next call of one of its tools. The servers stop when ctx ends; Wait
// waits for that.
func Start(ctx context.Context, servers []Server, reserved []string, budget int, offer func([]agent.Tool), log *slog.Logger) *Manager {
	m := &Manager{offer: offer, reserved: reserved, budget: budget, ready: make(chan struct{}), log: log}
	for _, cfg := range servers {
		m.servers = append(m.servers, newServer(ctx, cfg, log, m.changed))
	}
	var tried sync.WaitGroup
	tried.Add(len(m.servers))
	go func() { tried.Wait(); close(m.ready) }()
	for _, s := range m.servers {
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			first := sync.OnceFunc(tried.Done)
			defer first()
			for {
				_, err := s.connected(ctx)
				first()
				if err == nil || ctx.Err() != nil {
					break
				}
				if !backoff.Sleep(ctx, time.Until(s.retryTime())) {
					break
				}
			}
			<-ctx.Done()
			s.stop()
		}()
	}
	return m
}

// Wait waits until every server has stopped, after the context of Start ended.
func (m *Manager) Wait() { m.wg.Wait() }

// Tried is closed once every server was started (or connected to) once,
// whether it came up or not: from then on the tools offered are the
// servers' own, not merely the ones listed so far (agent.Registry.AwaitExtra).
func (m *Manager) Tried() <-chan struct{} { return m.ready }

// Statuses says what each server is doing, for /tools.
func (m *Manager) Statuses() []Status {
	var out []Status
	for _, s := range m.servers {
		st := s.status()
		m.mu.Lock()
		st.LeftOut = slices.Clone(m.leftOut[s.cfg.Name])
		m.mu.Unlock()
		out = append(out, st)
	}
	return out
}

// found is a tool a server listed.
type found struct {
	server *server
	tool   *mcp.Tool
}

// changed offers the servers' tools as they are now, within the budget.
func (m *Manager) changed() {
	m.mu.Lock() // one offer at a time, each of the newest lists
	defer m.mu.Unlock()
	lists := make([][]*mcp.Tool, len(m.servers))
	var all []found
	for i, s := range m.servers {
		lists[i] = s.listed()
		for _, t := range lists[i] {
			all = append(all, found{s, t})
		}
	}
	names := toolNames(m.reserved, all) // of every tool, so that none's name depends on the budget
	kept := m.withinBudget(lists)
	tools := make([]agent.Tool, 0, len(all))
	m.leftOut = map[string][]string{}
	left := 0
	for i, f := range all {
		if kept[f.tool] {
			tools = append(tools, f.server.offered(names[i], f.tool))
		} else {
			m.leftOut[f.server.cfg.Name] = append(m.leftOut[f.server.cfg.Name], f.tool.Name)
			left++
		}
	}
	if left > 0 {
		m.log.Warn("the MCP servers' tools are over MCP_TOOLS_BUDGET; some are left out (see /tools)", "budget", m.budget, "left_out", left, "offered", len(tools))
	}
	m.offer(tools)
}

// withinBudget picks the tools offered: each server's in the order it
// listed them, a tool of each server in turn (so that one server's many
// tools leave the others' first ones in), as long as their estimated
// tokens together fit the budget.
func (m *Manager) withinBudget(lists [][]*mcp.Tool) map[*mcp.Tool]bool {
	kept := map[*mcp.Tool]bool{}
	used := 0
	for i := 0; ; i++ {
		more := false
		for _, list := range lists {
			if i >= len(list) {
				continue
			}
			more = true
			if cost := toolTokens(list[i]); used+cost <= m.budget {
				used += cost
				kept[list[i]] = true
			}
		}
		if !more {
			return kept
		}
	}
}

// toolTokens is the estimated size of a tool's definition in a request:
// its name, description (with the line saying its server) and schema.
func toolTokens(t *mcp.Tool) int {
	schema, _ := json.Marshal(t.InputSchema)
	return request.EstimateTokens(t.Name+t.Description+string(schema)) + 30
}

// offered is the agent's tool of the server's tool t, offered under name.
// What an untrusted server writes, its tools' descriptions and results, is
// outside text.
func (s *server) offered(name string, t *mcp.Tool) agent.Tool {
	params, _ := t.InputSchema.(map[string]any) // bounded made it so
	return agent.Tool{
		Name:        name,
		Description: fmt.Sprintf("[%s, from the MCP server %s] %s", t.Name, s.cfg.Name, t.Description),
		Parameters:  params,
		Run: func(ctx context.Context, _ *agent.TurnInfo, raw json.RawMessage) (string, error) {
			args, err := arguments(raw)
			if err != nil {
				return "", err
			}
			return s.call(ctx, t.Name, args)
		},
		AskFirst:         !slices.Contains(s.cfg.AutoApprove, t.Name),
		AutoApproveUsers: s.cfg.AutoApproveUsers,
		Outside:          !s.cfg.Trusted,
		DescribedOutside: !s.cfg.Trusted,
		Server:           s.cfg.Name,
		ServerTool:       t.Name,
		Identity:         s.announced,
	}
}

// arguments checks a call's arguments, one JSON object and nothing after
// it, and returns them as they are: the server gets the very bytes a person
// approved (agent.CanonicalArgs), not a re-encoding with its keys sorted.
func arguments(raw json.RawMessage) (json.RawMessage, error) {
	var args map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&args); err != nil || args == nil {
		return nil, errors.New("bad arguments: not a JSON object")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("bad arguments: something follows the object")
	}
	return raw, nil
}

// maxName is the longest tool name the chat completions API takes.
const maxName = 64

// nameChars are the characters the API takes in a tool's name.
var nameChars = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// toolNames names each tool for the model: its own name where no other
// tool (of another server, or reserved) has it, else the server's name and
// its own; within maxName characters of nameChars. A name that is still
// taken, or had to be cut, ends in a hash of the server and the tool, so
// the same tools get the same names at every start (a call waiting for
// approval is found by its name).
func toolNames(reserved []string, all []found) []string {
	clean := func(s string) string { return nameChars.ReplaceAllString(s, "_") }
	count := map[string]int{}
	for _, r := range reserved {
		count[r]++
	}
	for _, f := range all {
		count[clean(f.tool.Name)]++
	}
	names := make([]string, len(all))
	taken := map[string]bool{}
	for _, r := range reserved {
		taken[r] = true
	}
	for i, f := range all {
		name := clean(f.tool.Name)
		if count[name] > 1 || len(name) > maxName {
			name = clean(f.server.cfg.Name + "_" + f.tool.Name)
		}
		if taken[name] || len(name) > maxName {
			sum := sha256.Sum256([]byte(f.server.cfg.Name + "\x00" + f.tool.Name))
			name = name[:min(len(name), maxName-9)] + "_" + hex.EncodeToString(sum[:4])
		}
		taken[name] = true
		names[i] = name
	}
	return names
}

// Probe starts (or connects to) one server as the bot would, lists its
// tools and stops it: the tools as they would be offered, under names other
// than reserved, or why it did not start (`membot doctor`).
func Probe(ctx context.Context, cfg Server, reserved []string, log *slog.Logger) ([]agent.Tool, error) {
	s := newServer(ctx, cfg, log, func() {})
	defer s.stop()
	if _, err := s.connected(ctx); err != nil {
		return nil, err
	}
	var all []found
	for _, t := range s.listed() {
		all = append(all, found{s, t})
	}
	names := toolNames(reserved, all)
	tools := make([]agent.Tool, 0, len(all))
	for i, f := range all {
		tools = append(tools, s.offered(names[i], f.tool))
	}
	return tools, nil
}
