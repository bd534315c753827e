package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/agent/mcptools"
	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/internal/testing/calltest"
)

// offered is the agent's tools; fetch_url and the files server's write
// ask first, for user 7 only (another user, another chat: their own).
type offered []agent.Tool

func (o offered) Tools() []agent.Tool { return o }

func (offered) AsksFirstIn(tool agent.Tool, user, chat int64) bool {
	return user == 7 && chat == 7 && (tool.Name == "fetch_url" || tool.ServerTool == "write")
}

var tools = offered{
	{Name: "calculator"}, {Name: "fetch_url"},
	{Name: "files_write", Server: "files", ServerTool: "write"},
	{Name: "files_read", Server: "files", ServerTool: "read"},
}

func TestToolsListsEachToolAndWhetherItAsksFirst(t *testing.T) {
	t.Parallel()
	en := texts.For("en")
	servers := []mcptools.Status{
		{Name: "files", Transport: "stdio", State: mcptools.StateReady, Trusted: true, LeftOut: []string{"delete"}},
		{Name: "web", Transport: "http", State: mcptools.StateDown, Why: "connection refused"},
	}
	r := &calltest.Recorder{}
	if err := (Commands{Agent: tools, Servers: func() []mcptools.Status { return servers }}).Tools(context.Background(), r.Call("")); err != nil {
		t.Fatal(err)
	}
	want := en.ToolsBuiltin("calculator, fetch_url ("+en.ToolAsksFirst+")") +
		"\n\n" + en.ToolsServer("files", "stdio", en.ToolStates[mcptools.StateReady]+", "+en.ToolTrusted) +
		"\n• read " + en.ToolOfferedAs("files_read") + " — " + en.ToolRunsFreely +
		"\n• write " + en.ToolOfferedAs("files_write") + " — " + en.ToolAsksFirst +
		"\n" + en.ToolsLeftOut("delete") +
		"\n\n" + en.ToolsServer("web", "http", en.ToolStateDown("connection refused"))
	if r.Last() != want {
		t.Errorf("/tools =\n%s\nwant\n%s", r.Last(), want)
	}
}

func TestWithoutServersToolsSaysSo(t *testing.T) {
	t.Parallel()
	r := &calltest.Recorder{}
	if err := (Commands{Agent: tools}).Tools(context.Background(), calltest.InGroup(r.Call(""))); err != nil {
		t.Fatal(err)
	}
	en := texts.For("en")
	if got := r.Last(); !strings.HasPrefix(got, en.ToolsBuiltin("calculator, fetch_url")+"\n\n") || !strings.HasSuffix(got, en.ToolsNoServers) {
		t.Errorf("/tools in another chat, without servers = %q", got)
	}
}
