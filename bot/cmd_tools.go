package bot

import (
	"context"
	"slices"
	"strings"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/agent/mcptools"
	"github.com/membot/membot/bot/approve"
)

// cmdTools lists the tools the model may use now: the built-in ones, and
// each MCP server's with whether a call (by whoever asks, where they ask)
// asks first, the servers that are starting or down and why, and the
// tools left out of the budget.
func cmdTools(ctx context.Context, h *Handler, in *incoming) error {
	t := tr(in.lang())
	asksFirst := func(tool agent.Tool) bool { return h.Agent.AsksFirstIn(tool, in.user.TelegramUserID, in.msg.Chat.ID) }
	asks := func(tool agent.Tool) string {
		if asksFirst(tool) {
			return t.ToolAsksFirst
		}
		return t.ToolRunsFreely
	}
	var builtin []string
	byServer := map[string][]agent.Tool{}
	for _, tool := range h.Agent.Tools() {
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
	if h.MCPServers != nil {
		servers = h.MCPServers()
	}
	for _, s := range servers {
		state := t.ToolStates[s.State]
		if s.Why != "" {
			state = t.ToolStateDown(approve.Label(s.Why))
		}
		if s.Trusted {
			state += ", " + t.ToolTrusted
		}
		b.WriteString("\n\n" + t.ToolsServer(approve.Label(s.Name), s.Transport, state))
		tools := byServer[s.Name]
		slices.SortFunc(tools, func(a, b agent.Tool) int { return strings.Compare(a.ServerTool, b.ServerTool) })
		for _, tool := range tools {
			b.WriteString("\n• " + approve.Label(tool.ServerTool))
			if tool.Name != tool.ServerTool {
				b.WriteString(" " + t.ToolOfferedAs(tool.Name))
			}
			b.WriteString(" — " + asks(tool))
		}
		if len(s.LeftOut) > 0 {
			labels := make([]string, len(s.LeftOut))
			for i, name := range s.LeftOut {
				labels[i] = approve.Label(name)
			}
			b.WriteString("\n" + t.ToolsLeftOut(strings.Join(labels, ", ")))
		}
	}
	if len(servers) == 0 {
		b.WriteString("\n\n" + t.ToolsNoServers)
	}
	return h.reply(ctx, in, b.String())
}
