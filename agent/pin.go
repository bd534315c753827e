package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// Pin is what a call of an MCP server's tool waiting for approval is
// pinned to: the server (its name in MCP_SERVERS), the identity it
// announced at initialize, and the tool's name there. The approved call
// runs only where the name it was asked under still leads to the same.
type Pin struct {
	Server   string `json:"server"`
	Identity string `json:"identity,omitempty"`
	Tool     string `json:"tool"`
}

// pin returns the pin of a call of the tool offered as name now, as JSON
// for the approval's row; "" for a tool of no server.
func (a *Agent) pin(name string) string {
	t, ok := a.tools.tool(name)
	if !ok || t.Server == "" {
		return ""
	}
	p := Pin{Server: t.Server, Tool: t.ServerTool}
	if t.Identity != nil {
		p.Identity = t.Identity()
	}
	raw, _ := json.Marshal(p) // strings only
	return string(raw)
}

// pinBroken tells, when a call pinned (stored as JSON) is to run now as
// the tool t, why it must not: the name now leads to another server or
// tool, or the server announces another identity. "" when it may run.
func pinBroken(stored string, t Tool, ok bool) (string, Pin) {
	var p Pin
	if stored == "" {
		return "", p
	}
	if err := json.Unmarshal([]byte(stored), &p); err != nil {
		return "its approval's record is unreadable", p
	}
	switch {
	case !ok:
		return "no server offers the tool any more", p
	case t.Server != p.Server || t.ServerTool != p.Tool:
		return fmt.Sprintf("the name now leads to the tool %s of the MCP server %s", t.ServerTool, t.Server), p
	}
	if t.Identity != nil && p.Identity != "" {
		if now := t.Identity(); now != "" && now != p.Identity {
			return fmt.Sprintf("the MCP server %s now announces itself as %q, not %q", p.Server, now, p.Identity), p
		}
	}
	return "", p
}

// pinNote tells the user, in words, that an approved call did not run.
func pinNote(lang, tool string, p Pin, why string) string {
	if strings.HasPrefix(lang, "ru") {
		return fmt.Sprintf("⚠️ Одобренный вызов %s (MCP-сервер %s, инструмент %s) не выполнен: с момента запроса изменилось, куда он попадёт (%s).",
			tool, p.Server, p.Tool, why)
	}
	return fmt.Sprintf("⚠️ The approved call of %s (MCP server %s, its tool %s) did not run: where it would go changed since it was asked (%s).",
		tool, p.Server, p.Tool, why)
}

type pinKey struct{}

// WithPin gives an approved call's context its pin, for the tool to hold
// its server to at the moment it calls it (PinOf).
func WithPin(ctx context.Context, p Pin) context.Context { return context.WithValue(ctx, pinKey{}, p) }

// PinOf is the pin of the approved call ctx runs, if it has one: an MCP
// tool refuses the call when its server's session announced another
// identity.
func PinOf(ctx context.Context) (Pin, bool) {
	p, ok := ctx.Value(pinKey{}).(Pin)
	return p, ok
}
