package bot_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/internal/testing/mcpfake"
	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/telegramfake"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/queue"
)

// hostileServer is a Streamable HTTP MCP server (mcpfake) that misbehaves
// as m says once the bot has connected to it, and its entry.
func hostileServer(t *testing.T, entry map[string]any) (*mcpfake.HTTP, map[string]any) {
	web := mcpfake.NewHTTP(mcpfake.Options{Versions: []string{"2025-06-18"}})
	t.Cleanup(web.Close)
	e := map[string]any{"url": web.URL()}
	for k, v := range entry {
		e[k] = v
	}
	return web, e
}

// mostTaken is the most of a hostile server's answer the bot may have
// taken in: a bound (4 MiB an event, 16 MiB a stream) and what the
// connection's buffers hold besides.
const mostTaken = 24 << 20

// checkStillAnswers checks the bot answers another message, in another
// chat, and that its heap is not holding what the server sent.
func checkStillAnswers(t *testing.T, h *harness) {
	t.Helper()
	if got := h.Say(ivan, "are you alive?"); got != "echo: are you alive?" {
		t.Fatalf("after the hostile server the bot answered %q", got)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapAlloc > 256<<20 { // every test of the package shares this heap
		t.Fatalf("the heap holds %d MiB after the hostile server", ms.HeapAlloc>>20)
	}
}

// A server that answers initialize and its tool list, then sends one
// endless "data:" line on the stream it may keep open: the bot reads at
// most an event's bound of it, disconnects the server, shows why in /tools,
// and goes on answering.
func TestAnMCPServerSendingAnEndlessLineOnItsStreamIsDisconnected(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	web, entry := hostileServer(t, nil)
	web.Misbehave(mcpfake.EndlessLine)
	withMCPServers(t, h, map[string]any{"endless": entry})
	h.Start()
	h.WaitLog(`msg="the MCP server broke a bound; it is disconnected" mcp_server=endless err="disconnected: it sent an event longer than 4 MiB"`)
	if sent := web.Sent(); sent > mostTaken {
		t.Fatalf("the bot took in %d MiB of the endless line", sent>>20)
	}
	var got string
	h.WaitUntil("/tools does not say why the server is down", func() bool {
		got = h.Say(jane, "/tools")
		return strings.Contains(got, "MCP server endless (http), down (disconnected: it sent an event longer than 4 MiB; it is tried again at the next use):")
	})
	checkStillAnswers(t, h)
}

// A call answered with one event of 128 MiB fails with a clear error after
// at most 4 MiB of it; the server is disconnected, the chat goes on.
func TestAnMCPCallAnsweredWithAHugeEventFailsClearly(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	web, entry := hostileServer(t, map[string]any{"autoApprove": []string{"echo"}})
	withMCPServers(t, h, map[string]any{"huge": entry})
	h.Start()
	h.WaitLog(`msg="MCP server ready" mcp_server=huge`)
	web.Misbehave(mcpfake.HugeEvent)
	h.LLM.Script(openaifake.Reply{ToolCalls: []openai.ToolCall{openaifake.ToolCall("call_huge", "echo", `{"text":"hi"}`)}},
		openaifake.Reply{Content: "The server failed."})
	if got := h.Say(jane, "echo hi"); got != "The server failed." {
		t.Fatalf("the answer = %q", got)
	}
	content, _ := toolResult(h, "call_huge")
	if !strings.HasPrefix(content, "error: the MCP server huge failed during the call (disconnected: it sent an event longer than 4 MiB)") {
		t.Fatalf("the result = %q", content)
	}
	if sent := web.Sent(); sent > mostTaken {
		t.Fatalf("the bot took in %d MiB of the huge event", sent>>20)
	}
	checkStillAnswers(t, h)
}

// A call answered with endless events (log notifications, and never the
// result) fails at the events' bound, long before the call's timeout.
func TestAnMCPCallAnsweredWithEndlessEventsFailsClearly(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	web, entry := hostileServer(t, map[string]any{"autoApprove": []string{"echo"}, "timeout": "10m"})
	withMCPServers(t, h, map[string]any{"chatty": entry})
	h.Start()
	h.WaitLog(`msg="MCP server ready" mcp_server=chatty`)
	web.Misbehave(mcpfake.EndlessEvents)
	h.LLM.Script(openaifake.Reply{ToolCalls: []openai.ToolCall{openaifake.ToolCall("call_chatty", "echo", `{"text":"hi"}`)}},
		openaifake.Reply{Content: "The server failed."})
	if got := h.Say(jane, "echo hi"); got != "The server failed." {
		t.Fatalf("the answer = %q", got)
	}
	content, _ := toolResult(h, "call_chatty")
	if !strings.HasPrefix(content, "error: the MCP server chatty failed during the call (disconnected: it sent more than 1000 events in one stream)") {
		t.Fatalf("the result = %q", content)
	}
	if sent := web.Sent(); sent > mostTaken {
		t.Fatalf("the bot took in %d MiB of events", sent>>20)
	}
	checkStillAnswers(t, h)
}

// An approval names the server github and its tool echo. Before the press
// a server that sorts first announces a tool of the same model-facing
// name (github_echo): the approved call, with its secret argument, must
// not go there; it is refused, and the user is told.
func TestAnApprovedMCPCallNeverGoesToAnotherServer(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	_, github := hostileServer(t, nil)
	_, other := hostileServer(t, nil)
	first := mcpfake.NewHTTP(mcpfake.Options{Prefix: "first_", Versions: []string{"2025-06-18"}})
	t.Cleanup(first.Close)
	withMCPServers(t, h, map[string]any{"github": github, "other": other, "aaa": map[string]any{"url": first.URL()}})
	h.Start()
	for _, name := range []string{"github", "other", "aaa"} {
		h.WaitLog(`msg="MCP server ready" mcp_server=` + name)
	}
	prompt, approve, _ := askTool(h, jane, "call_pinned", "github_echo", `{"text":"secret-argument"}`)
	if !strings.Contains(prompt.Text, "MCP server github, its tool echo") {
		t.Fatalf("the request = %q", prompt.Text)
	}
	mcpfake.Learn(first.Server, "github_echo") // notifications/tools/list_changed
	h.WaitLog(`msg="MCP server's tools changed" mcp_server=aaa`)
	if got := h.Say(jane, "/tools"); !strings.Contains(got, "• github_echo — asks first") {
		t.Fatalf("the name github_echo is not aaa's now: /tools = %q", got)
	}

	h.LLM.Script(openaifake.Reply{Content: "It did not run."})
	got := h.PressForReply(jane, prompt, approve)
	if !strings.HasPrefix(got.Text, "It did not run.") || !strings.Contains(got.Text, "The approved call of github_echo (MCP server github, its tool echo) did not run") ||
		!strings.Contains(got.Text, "the name now leads to the tool github_echo of the MCP server aaa") {
		t.Fatalf("after the press the chat got %q", got.Text)
	}
	h.WaitIdle()
	content, server := toolResult(h, "call_pinned")
	if !strings.HasPrefix(content, "Not run: the name now leads to the tool github_echo of the MCP server aaa") || server != "" {
		t.Fatalf("the result = %q from %q", content, server)
	}
	if n := h.Count(`SELECT count(*) FROM messages WHERE content LIKE '%github_echo: secret-argument%'`); n != 0 {
		t.Fatal("the call ran on the server that took the name")
	}
	if n := h.Count(`SELECT count(*) FROM pending_approvals WHERE pin->>'server' = 'github' AND pin->>'tool' = 'echo'
		AND pin->>'identity' = 'mcpfake 1'`); n != 1 {
		t.Fatalf("%d approvals pinned to github's echo", n)
	}
}

// autoApprove holds, without autoApproveUsers, in private chats and for
// the bot's admins in groups; with it, for the users it names only.
func TestAutoApproveHoldsOnlyForItsUsers(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["ADMIN_USER_IDS"] = fmt.Sprint(jane.ID)
	_, open := hostileServer(t, map[string]any{"autoApprove": []string{"echo"}})
	_, named := hostileServer(t, map[string]any{"autoApprove": []string{"echo"}, "autoApproveUsers": []int64{ivan.ID}})
	withMCPServers(t, h, map[string]any{"open": open, "named": named})
	h.Start()
	h.WaitLog(`msg="MCP server ready" mcp_server=open`)
	h.WaitLog(`msg="MCP server ready" mcp_server=named`)
	const group = -100777
	member := telegramfake.User{ID: 777, FirstName: "Member", LanguageCode: "en"}
	call := func(from telegramfake.User, chat int64, tool string) string {
		callID := fmt.Sprintf("call_%s_%d_%d", tool, from.ID, -chat)
		// Only the call is scripted: a call that asks first waits, and the
		// answer after one that ran is the fake's own.
		h.LLM.Script(openaifake.Reply{ToolCalls: []openai.ToolCall{openaifake.ToolCall(callID, tool, `{"text":"x"}`)}})
		kind := "private"
		if chat < 0 {
			kind = "supergroup"
		}
		return h.SayIn(chat, kind, from, "@"+h.TG.Bot().Username+" use "+tool)
	}
	asked := func(got string) bool {
		return strings.Contains(got, "Allow it?") || strings.Contains(got, "Разрешить?")
	}
	for _, c := range []struct {
		who  telegramfake.User
		chat int64
		tool string
		asks bool
	}{
		{jane, jane.ID, "open_echo", false}, // a private chat
		{jane, group, "open_echo", false},   // an admin in a group
		{member, group, "open_echo", true},  // anyone else in a group
		{ivan, ivan.ID, "named_echo", false},
		{jane, jane.ID, "named_echo", true}, // not named, even in private, even an admin
		{member, group, "named_echo", true},
	} {
		if got := call(c.who, c.chat, c.tool); asked(got) != c.asks {
			t.Fatalf("%s by %s in %d: asks %v, want %v (%q)", c.tool, c.who.FirstName, c.chat, asked(got), c.asks, got)
		}
		h.WaitIdle()
	}
}

// All tools' definitions together are held to MCP_TOOLS_BUDGET: those
// over it are not offered, and /tools names them.
func TestMCPToolsOverTheBudgetAreLeftOut(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["MCP_TOOLS_BUDGET"] = "400"
	_, a := hostileServer(t, nil)
	_, b := hostileServer(t, nil)
	withMCPServers(t, h, map[string]any{"a": a, "b": b})
	h.Start()
	h.WaitLog(`msg="MCP server ready" mcp_server=a`)
	h.WaitLog(`msg="MCP server ready" mcp_server=b`)
	h.WaitLog(`msg="the MCP servers' tools are over MCP_TOOLS_BUDGET; some are left out \(see /tools\)" budget=400 left_out=\d+ offered=\d+`)
	got := h.Say(jane, "/tools")
	// Each server's first tools are in: one server's many do not crowd out the other's.
	if !strings.Contains(got, "⚠️ Left out, over MCP_TOOLS_BUDGET") || !strings.Contains(got, "• big (as a_big)") || !strings.Contains(got, "• big (as b_big)") {
		t.Fatalf("/tools = %q", got)
	}
	listed := strings.Count(got, "(as a_") + strings.Count(got, "(as b_")
	h.Say(jane, "hello")
	reqs := h.LLM.Requests()
	var offered []string
	for _, tool := range reqs[len(reqs)-1].Tools {
		if strings.Contains(tool.Function.Description, "from the MCP server") {
			offered = append(offered, tool.Function.Name)
		}
	}
	if len(offered) == 0 || len(offered) >= 2*9 || len(offered) != listed {
		t.Fatalf("the request offers the MCP tools %v; /tools lists %d", offered, listed)
	}
}

// An update stored before the bot started (a run that stopped left it) is
// handled with the MCP servers' tools offered: start-up waits for the
// servers before it dispatches, here for one that starts slowly.
func TestAnUpdateTakenOverAtStartUpIsAnsweredWithTheMCPTools(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	dir := t.TempDir()
	gate, started := filepath.Join(dir, "gate"), filepath.Join(dir, "started")
	withMCPServers(t, h, map[string]any{"local": stdioServer(t, nil, mcpfake.GateEnv, gate, mcpfake.StartedEnv, started)})
	payload, _ := json.Marshal(map[string]any{"update_id": 9001, "message": telegramfake.TextMessage(jane.ID, "private", jane, "a question left over")})
	if err := memory.NewStore(h.DB).Inbox().SaveUpdates(context.Background(), []queue.Update{{UpdateID: 9001, ChatID: jane.ID, Payload: payload}}); err != nil {
		t.Fatal(err)
	}
	h.Start()
	// The server is let answer once the bot waits for it, or once the
	// model was asked without waiting.
	h.WaitUntil("the MCP server was not started", func() bool { _, err := os.Stat(started); return err == nil })
	h.WaitUntil("neither a wait for the MCP servers nor a model call", func() bool {
		return strings.Contains(h.Logs.String(), "waiting for the MCP servers to start before handling updates") || len(h.LLM.Requests()) > 0
	})
	if err := os.WriteFile(gate, nil, 0o600); err != nil { // the server answers from now on
		t.Fatal(err)
	}
	h.WaitDone(9001)
	reqs := h.LLM.Requests()
	if len(reqs) == 0 {
		t.Fatal("the model was not asked")
	}
	var offered []string
	for _, tool := range reqs[0].Tools {
		offered = append(offered, tool.Function.Name)
	}
	if !slices.Contains(offered, "echo") || !slices.Contains(offered, "calculator") {
		t.Fatalf("the turn taken over was offered %v", offered)
	}
}
