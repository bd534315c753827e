// Package tools is /tools: the tools the model may use now, the built-in
// ones and each MCP server's, with whether a call (by whoever asks, where
// they ask) asks first; the servers that are starting or down and why;
// and the tools left out of the budget. bot routes the command to
// Commands.
package tools

import (
	"context"
	"slices"
	"strings"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/agent/mcptools"
	"github.com/membot/membot/bot/approve"
	"github.com/membot/membot/bot/command"
	"github.com/membot/membot/bot/texts"
)

// Agent offers the tools and decides which calls ask first (agent.Agent).
type Agent interface {
	Tools() []agent.Tool
	AsksFirstIn(tool agent.Tool, user, chat int64) bool
}

// Commands are /tools.
type Commands struct {
	Agent Agent
	// Servers, when set, says what each MCP server is doing.
	Servers func() []mcptools.Status
}

// Tools lists the tools the model may use now.
func (s Commands) Tools(ctx context.Context, c command.Call) error {
	t := texts.For(c.Lang())
	asksFirst := func(tool agent.Tool) bool { return s.Agent.AsksFirstIn(tool, c.UserID(), c.Chat.ID) }
	var builtin []string
	byServer := map[string][]agent.Tool{}
	for _, tool := range s.Agent.Tools() {
		if tool.Server != "" {
			byServer[tool.Server] = append(byServer[tool.Server], tool)
			continue
		}
		name := tool.Name
		if asksFirst(tool) {
			name += " (" + t.ToolAsksFirst + ")"
		}
		builtin = append(builtin, name)
	}
	var b strings.Builder
	b.WriteString(t.ToolsBuiltin(strings.Join(builtin, ", ")))
	var servers []mcptools.Status
	if s.Servers != nil {
		servers = s.Servers()
	}
	for _, server := range servers {
		b.WriteString("\n\n" + describe(t, server, byServer[server.Name], asksFirst))
	}
	if len(servers) == 0 {
		b.WriteString("\n\n" + t.ToolsNoServers)
	}
	return c.Reply(ctx, b.String())
}

// describe is an MCP server's part of the list: its state, its tools and
// whether each asks first, and the tools left out.
func describe(t *texts.Texts, s mcptools.Status, tools []agent.Tool, asksFirst func(agent.Tool) bool) string {
	var b strings.Builder
	state := t.ToolStates[s.State]
	if s.Why != "" {
		state = t.ToolStateDown(approve.Label(s.Why))
	}
	if s.Trusted {
		state += ", " + t.ToolTrusted
	}
	b.WriteString(t.ToolsServer(approve.Label(s.Name), s.Transport, state))
	slices.SortFunc(tools, func(a, b agent.Tool) int { return strings.Compare(a.ServerTool, b.ServerTool) })
	for _, tool := range tools {
		b.WriteString("\n• " + approve.Label(tool.ServerTool))
		if tool.Name != tool.ServerTool {
			b.WriteString(" " + t.ToolOfferedAs(tool.Name))
		}
		asks := t.ToolRunsFreely
		if asksFirst(tool) {
			asks = t.ToolAsksFirst
		}
		b.WriteString(" — " + asks)
	}
	if len(s.LeftOut) > 0 {
		labels := make([]string, len(s.LeftOut))
		for i, name := range s.LeftOut {
			labels[i] = approve.Label(name)
		}
		b.WriteString("\n" + t.ToolsLeftOut(strings.Join(labels, ", ")))
	}
	return b.String()
}
