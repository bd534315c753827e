package mcptools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/agent/mcptools"
	"github.com/membot/membot/internal/testing/mcpfake"
	"github.com/membot/membot/internal/testing/testkit"
	"github.com/membot/membot/internal/testing/wait"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const botSecret = "sk-bot-secret-never-passed"

func TestMain(m *testing.M) {
	mcpfake.ServeIfAsked()
	os.Setenv("OPENAI_API_KEY", botSecret) // the bot's own environment, which servers must not get
	os.Setenv("SHELL", "/bin/the-bots-shell")
	os.Exit(m.Run())
}

// offered keeps what the manager offers, for the test to wait on.
type offered struct {
	mu    sync.Mutex
	tools []agent.Tool
}

func (o *offered) set(tools []agent.Tool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.tools = tools
}

func (o *offered) find(t *testing.T, name string) agent.Tool {
	t.Helper()
	var found agent.Tool
	ok := wait.Until(10*time.Millisecond, func() bool {
		o.mu.Lock()
		defer o.mu.Unlock()
		for _, tool := range o.tools {
			if tool.Name == name {
				found = tool
				return true
			}
		}
		return false
	})
	if !ok {
		t.Fatalf("no tool %q offered; offered %v", name, o.names())
	}
	return found
}

func (o *offered) names() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var names []string
	for _, t := range o.tools {
		names = append(names, t.Name)
	}
	return names
}

func start(t *testing.T, servers []mcptools.Server, reserved ...string) (*offered, *mcptools.Manager, *testkit.SyncBuffer) {
	t.Helper()
	logs := &testkit.SyncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	o := &offered{}
	m := mcptools.Start(ctx, servers, reserved, mcptools.DefaultBudget, o.set, slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() {
		cancel()
		m.Wait()
		if t.Failed() {
			t.Logf("logs:\n%s", logs)
		}
	})
	return o, m, logs
}

func stdio(name string, env ...string) mcptools.Server {
	s := mcptools.Server{Name: name, Command: os.Args[0], Env: map[string]string{mcpfake.ServeEnv: "1"}, Timeout: wait.Timeout()}
	for i := 0; i+1 < len(env); i += 2 {
		s.Env[env[i]] = env[i+1]
	}
	return s
}

func run(t *testing.T, tool agent.Tool, args string) (string, error) {
	t.Helper()
	return tool.Run(context.Background(), &agent.TurnInfo{}, json.RawMessage(args))
}

func TestStdioAndHTTPServersToolsAreOfferedAndAnswer(t *testing.T) {
	t.Parallel()
	web := mcpfake.NewHTTP(mcpfake.Options{Prefix: "web_", Versions: []string{"2025-06-18"}})
	t.Cleanup(web.Close)
	web.Require("Authorization", "Bearer sekret-token")
	o, _, logs := start(t, []mcptools.Server{
		stdio("local", "SECRET_FOR_SERVER", "env-value-never-logged"),
		{Name: "web", URL: web.URL(), Headers: map[string]string{"Authorization": "Bearer sekret-token"}, Timeout: wait.Timeout(),
			AutoApprove: []string{"web_echo"}},
	}, "calculator")

	echo := o.find(t, "echo")
	if echo.Server != "local" || echo.ServerTool != "echo" || !echo.AskFirst || !echo.Outside {
		t.Fatalf("echo = %+v", echo)
	}
	if got, err := run(t, echo, `{"text":"hi"}`); err != nil || got != "echo: hi" {
		t.Fatalf("echo = %q, %v", got, err)
	}
	webEcho := o.find(t, "web_echo")
	if webEcho.AskFirst {
		t.Fatal("web_echo is in autoApprove but asks first")
	}
	if got, err := run(t, webEcho, `{"text":"hi"}`); err != nil || got != "echo: hi" {
		t.Fatalf("web_echo = %q, %v", got, err)
	}
	// The env reaches the server; the bot's own environment does not.
	env := o.find(t, "env")
	if got, _ := run(t, env, `{"name":"SECRET_FOR_SERVER"}`); got != "env-value-never-logged" {
		t.Fatalf("env = %q", got)
	}
	if got, _ := run(t, env, `{"name":"OPENAI_API_KEY"}`); got != "(unset)" {
		t.Fatalf("the server got the bot's OPENAI_API_KEY: %q", got)
	}
	if got, _ := run(t, env, `{"name":"`+mcpfake.ServeEnv+`"}`); got != "1" {
		t.Fatalf("env of ServeEnv = %q", got)
	}
	pic := o.find(t, "picture")
	if got, _ := run(t, pic, `{}`); !strings.Contains(got, "a red square") || !strings.Contains(got, "[an image (image/png, 15 bytes)") {
		t.Fatalf("picture = %q", got)
	}
	for _, secret := range []string{"sekret-token", "env-value-never-logged"} {
		if strings.Contains(logs.String(), secret) {
			t.Fatalf("%q is in the logs:\n%s", secret, logs)
		}
	}
}

func TestToolsOfTheSameNameAreNamedAfterTheirServers(t *testing.T) {
	t.Parallel()
	o, _, _ := start(t, []mcptools.Server{stdio("alpha"), stdio("beta.two")}, "echo", "calculator")
	a, b := o.find(t, "alpha_echo"), o.find(t, "beta_two_echo")
	if a.ServerTool != "echo" || b.ServerTool != "echo" || a.Server != "alpha" || b.Server != "beta.two" {
		t.Fatalf("alpha_echo = %+v, beta_two_echo = %+v", a, b)
	}
	if got, err := run(t, b, `{"text":"x"}`); err != nil || got != "echo: x" {
		t.Fatalf("beta_two_echo = %q, %v", got, err)
	}
	o.find(t, "alpha_sleep")
	for _, name := range o.names() {
		if len(name) > 64 || strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != "" {
			t.Fatalf("the name %q breaks the API's rule", name)
		}
	}
}

func TestADeadServerIsAClearErrorAndComesBack(t *testing.T) {
	t.Parallel()
	short := stdio("slow")
	short.Timeout = time.Second
	o, m, logs := start(t, []mcptools.Server{
		{Name: "missing", Command: "/nonexistent/mcp-server", Timeout: wait.Timeout()},
		stdio("crasher", mcpfake.ModeEnv, "crash-on-start"),
		func() mcptools.Server {
			s := stdio("hanger", mcpfake.ModeEnv, "hang-on-start")
			s.Timeout = 300 * time.Millisecond
			return s
		}(),
		short,
		stdio("fragile"),
	})
	// The ones that cannot start say so once, clearly.
	for _, want := range []string{
		`mcp_server=missing .*/nonexistent/mcp-server: no such file`,
		`mcp_server=crasher .*line="mcpfake: crashing on start as asked"`,
		`msg="MCP server failed to start[^"]*" mcp_server=crasher .*exit status 3`,
		`msg="MCP server failed to start[^"]*" mcp_server=hanger .*did not start within 10s`,
	} {
		if !wait.Until(10*time.Millisecond, func() bool { return regexp.MustCompile(want).MatchString(logs.String()) }) {
			t.Fatalf("no log line matches %s", want)
		}
	}
	states := map[string]string{}
	for _, s := range m.Statuses() {
		states[s.Name] = s.State
	}
	if states["missing"] != mcptools.StateDown || states["crasher"] != mcptools.StateDown || states["hanger"] != mcptools.StateDown {
		t.Fatalf("statuses = %+v", m.Statuses())
	}

	// A call that outlasts the timeout is an error; the server stays.
	sleep := o.find(t, "slow_sleep")
	if _, err := run(t, sleep, `{"seconds": 30}`); err == nil || err.Error() != "the MCP server slow did not answer within 1s" {
		t.Fatalf("sleep past the timeout: %v", err)
	}
	if got, err := run(t, sleep, `{"seconds": 0}`); err != nil || got != "slept" {
		t.Fatalf("sleep after the timeout = %q, %v", got, err)
	}

	// A server that crashes mid-call says so, and is started again at the next call.
	crash, echo := o.find(t, "fragile_crash"), o.find(t, "fragile_echo")
	if _, err := run(t, crash, `{}`); err == nil || !strings.Contains(err.Error(), "the MCP server fragile failed during the call") ||
		!strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("crash: %v", err)
	}
	if got, err := run(t, echo, `{"text":"again"}`); err != nil || got != "echo: again" {
		t.Fatalf("echo after the crash = %q, %v", got, err)
	}
	if n := strings.Count(logs.String(), `msg="MCP server ready" mcp_server=fragile`); n != 2 {
		t.Fatalf("fragile started %d times, want 2", n)
	}
	if !strings.Contains(logs.String(), `msg="MCP server stopped; it is started again at the next call of one of its tools" mcp_server=fragile`) {
		t.Fatal("the crash is not in the log")
	}
}

func TestAChangedToolListIsOfferedAgain(t *testing.T) {
	t.Parallel()
	web := mcpfake.NewHTTP(mcpfake.Options{})
	t.Cleanup(web.Close)
	o, _, _ := start(t, []mcptools.Server{stdio("local"), {Name: "web", URL: web.URL(), Timeout: wait.Timeout()}})
	learn := o.find(t, "local_learn")
	if _, err := run(t, learn, `{"name":"stdio_trick"}`); err != nil {
		t.Fatal(err)
	}
	if got, err := run(t, o.find(t, "stdio_trick"), `{"text":"x"}`); err != nil || got != "stdio_trick: x" {
		t.Fatalf("the learned tool = %q, %v", got, err)
	}
	mcpfake.Learn(web.Server, "http_trick")
	o.find(t, "http_trick")
}

func TestResultsAreBounded(t *testing.T) {
	t.Parallel()
	o, _, _ := start(t, []mcptools.Server{stdio("local")})
	got, err := run(t, o.find(t, "big"), `{"bytes": 1000000}`)
	if err != nil || len(got) != 64<<10 {
		t.Fatalf("big = %d bytes, %v", len(got), err)
	}
	if _, err := run(t, o.find(t, "echo"), `["not", "an object"]`); err == nil {
		t.Fatal("an array was taken for arguments")
	}
}

func TestAWrongHeaderLeavesTheServerDownWithoutShowingIt(t *testing.T) {
	t.Parallel()
	web := mcpfake.NewHTTP(mcpfake.Options{})
	t.Cleanup(web.Close)
	web.Require("Authorization", "Bearer right")
	_, m, logs := start(t, []mcptools.Server{{Name: "web", URL: web.URL() + "?key=query-secret", Headers: map[string]string{"Authorization": "Bearer wrong-secret"}, Timeout: wait.Timeout()}})
	if !wait.Until(10*time.Millisecond, func() bool { return strings.Contains(logs.String(), "MCP server failed to start") }) {
		t.Fatal("no failure logged")
	}
	if s := m.Statuses(); s[0].State != mcptools.StateDown {
		t.Fatalf("statuses = %+v", s)
	}
	for _, secret := range []string{"wrong-secret", "query-secret"} {
		if strings.Contains(logs.String(), secret) {
			t.Fatalf("%q is in the logs:\n%s", secret, logs)
		}
	}
}

func TestAServersToolDefinitionsAreBounded(t *testing.T) {
	t.Parallel()
	web := mcpfake.NewHTTP(mcpfake.Options{})
	t.Cleanup(web.Close)
	raw := func(name, desc string, schema map[string]any) {
		web.Server.AddTool(&mcp.Tool{Name: name, Description: desc, InputSchema: schema},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
	}
	object := map[string]any{"type": "object"}
	// The server lists its tools by name: these come first.
	raw("a_bad\x01name", "", object)
	raw("a_huge_schema", "", map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"description": strings.Repeat("x", 9000)}}})
	raw("a_long_description", strings.Repeat("long ", 1000), object)
	for i := range 80 {
		raw(fmt.Sprintf("b_many_%02d", i), "", object)
	}
	o, _, logs := start(t, []mcptools.Server{{Name: "web", URL: web.URL(), Timeout: wait.Timeout()}})
	long := o.find(t, "a_long_description")
	if n := utf8.RuneCountInString(long.Description); n > 1100 || !strings.HasSuffix(long.Description, "…") {
		t.Fatalf("the description is %d characters: %q", n, long.Description)
	}
	names := o.names()
	if len(names) != 64 {
		t.Fatalf("%d tools offered, want 64: %v", len(names), names)
	}
	for _, name := range names {
		if strings.Contains(name, "huge") || strings.Contains(name, "bad") {
			t.Fatalf("%q is offered", name)
		}
	}
	for _, want := range []string{`msg="an MCP tool is left out" mcp_server=web tool=a_bad?name`, `tool=a_huge_schema err="the input schema is`,
		`msg="the MCP server offers more tools than are taken; the rest are left out" mcp_server=web taken=64`} {
		if !strings.Contains(logs.String(), want) {
			t.Fatalf("the log does not say %s:\n%s", want, logs)
		}
	}
}

func TestTheServersFileIsReadStrictly(t *testing.T) {
	t.Parallel()
	servers, err := mcptools.Parse([]byte(`{"mcpServers": {
		"files": {"command": "npx", "args": ["-y", "server"], "env": {"K": "v"}, "autoApprove": ["read"], "timeout": "30s"},
		"web": {"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer x"}},
		"off": {"command": "nothing", "disabled": true}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(servers) != 2 || servers[0].Name != "files" || servers[0].Transport() != "stdio" || servers[0].Timeout != 30*time.Second ||
		servers[1].Name != "web" || servers[1].Transport() != "http" || servers[1].Timeout != time.Minute {
		t.Fatalf("servers = %+v", servers)
	}
	for file, want := range map[string]string{
		`{"servers": {}}`: `no "mcpServers" object`,
		`{"mcpServers": {"a": {"command": "x", "url": "http://y"}}}`:           `server "a": give either "command"`,
		`{"mcpServers": {"a": {}}}`:                                            `server "a": give either "command"`,
		`{"mcpServers": {"a": {"command": "x", "autoAprove": ["t"]}}}`:         `server "a": json: unknown field "autoAprove"`,
		`{"mcpServers": {"a b": {"command": "x"}}}`:                            `server "a b": a name is`,
		`{"mcpServers": {"a": {"url": "ftp://x/?key=secret"}}}`:                `server "a": "url" must be an http or https URL`,
		`{"mcpServers": {"a": {"url": "https://x", "args": ["y"]}}}`:           `server "a": an HTTP server ("url") takes no "args"`,
		`{"mcpServers": {"a": {"command": "x", "headers": {"A": "b"}}}}`:       `server "a": a stdio server ("command") takes no "headers"`,
		`{"mcpServers": {"a": {"command": "x", "timeout": "forever"}}}`:        `server "a": "timeout" must be a duration`,
		`{"mcpServers": {"a": {"url": "https://x", "headers": {"A:B": "c"}}}}`: `server "a": the header name "A:B" is not valid`,
	} {
		_, err := mcptools.Parse([]byte(file))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", file, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: the error shows the URL: %v", file, err)
		}
	}
}

func TestStdioServersStopWithTheBot(t *testing.T) {
	t.Parallel()
	logs := &testkit.SyncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	o := &offered{}
	m := mcptools.Start(ctx, []mcptools.Server{stdio("local")}, nil, mcptools.DefaultBudget, o.set, slog.New(slog.NewTextHandler(logs, nil)))
	out, err := run(t, o.find(t, "pid"), `{}`)
	if err != nil {
		cancel()
		m.Wait()
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(out)
	if pid <= 0 || syscall.Kill(pid, 0) != nil {
		t.Fatalf("the server's pid is %q", out)
	}
	cancel()
	m.Wait() // the process is reaped: its pid names nothing
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("the server (pid %d) still runs after the bot stopped: %v", pid, err)
	}
}

// An untrusted server's tools are outside text, their descriptions too
// (the ask-first rule reads DescribedOutside); a trusted one's are not.
func TestUntrustedServersToolsAreDescribedOutside(t *testing.T) {
	t.Parallel()
	trusted := stdio("trusted")
	trusted.Trusted = true
	o, m, _ := start(t, []mcptools.Server{stdio("stranger"), trusted})
	if tool := o.find(t, "stranger_echo"); !tool.DescribedOutside || !tool.Outside {
		t.Fatalf("an untrusted server's tool: %+v", tool)
	}
	if tool := o.find(t, "trusted_echo"); tool.DescribedOutside || tool.Outside {
		t.Fatalf("a trusted server's tool: %+v", tool)
	}
	for _, s := range m.Statuses() {
		if s.Trusted != (s.Name == "trusted") {
			t.Fatalf("statuses = %+v", m.Statuses())
		}
	}
}

// A stdio server gets PATH, HOME, LANG and its own env, and runs in a
// directory of its own, not the bot's.
func TestAStdioServerGetsNothingItWasNotGiven(t *testing.T) {
	t.Parallel()
	o, _, _ := start(t, []mcptools.Server{stdio("local", "GIVEN", "given")})
	found, err := run(t, o.find(t, "secrets"), `{}`)
	if err != nil {
		t.Fatal(err)
	}
	env, _, _ := strings.Cut(strings.TrimPrefix(found, "env: "), "\n")
	for _, v := range strings.Fields(env) {
		if name, _, _ := strings.Cut(v, "="); !slices.Contains([]string{"PATH", "HOME", "LANG", "GIVEN", mcpfake.ServeEnv}, name) {
			t.Errorf("the server got %s", v)
		}
	}
	wd, _ := os.Getwd()
	if !strings.Contains(found, "cwd: "+os.TempDir()+"/membot-mcp-local-") || strings.Contains(found, "cwd: "+wd+"\n") {
		t.Errorf("the server runs in the wrong directory:\n%s", found)
	}
}

// A stdio server that writes without end is stopped at the bound of what
// it may write in a minute, and is down with that reason.
func TestAStdioServerThatFloodsIsStopped(t *testing.T) {
	t.Parallel()
	// The bound is 64 MiB a minute; 2 MiB here, not to wait for a slow reader.
	_, m, logs := start(t, []mcptools.Server{mcptools.WithOutputBound(stdio("flood", mcpfake.ModeEnv, "flood"), 2<<20)})
	if !wait.Until(10*time.Millisecond, func() bool {
		return strings.Contains(logs.String(), `msg="the MCP server broke a bound; it is disconnected" mcp_server=flood err="disconnected: it wrote more than 2 MiB in a minute"`)
	}) {
		t.Fatal("the flood was not stopped")
	}
	if !wait.Until(10*time.Millisecond, func() bool {
		s := m.Statuses()[0]
		return s.State == mcptools.StateDown && s.Why == "disconnected: it wrote more than 2 MiB in a minute"
	}) {
		t.Fatalf("statuses = %+v", m.Statuses())
	}
}

// A call approved for a server that announced itself one way is refused
// when the server's session now announces another identity.
func TestAPinnedCallRefusesAServerOfAnotherIdentity(t *testing.T) {
	t.Parallel()
	o, _, _ := start(t, []mcptools.Server{stdio("local")})
	echo := o.find(t, "echo")
	if got := echo.Identity(); got != "mcpfake 1" {
		t.Fatalf("the identity = %q", got)
	}
	call := func(identity string) (string, error) {
		ctx := agent.WithPin(context.Background(), agent.Pin{Server: "local", Identity: identity, Tool: "echo"})
		return echo.Run(ctx, &agent.TurnInfo{}, json.RawMessage(`{"text":"x"}`))
	}
	if got, err := call("mcpfake 1"); err != nil || got != "echo: x" {
		t.Fatalf("the pinned call = %q, %v", got, err)
	}
	if got, err := call("mcpfake 0.9"); err == nil || !strings.Contains(err.Error(), `now announces itself as "mcpfake 1", not "mcpfake 0.9"`) {
		t.Fatalf("the call pinned to another identity = %q, %v", got, err)
	}
}

func TestTrustAndAutoApproveUsersAreRead(t *testing.T) {
	t.Parallel()
	servers, err := mcptools.Parse([]byte(`{"mcpServers": {
		"a": {"command": "x", "trusted": true, "autoApprove": ["t"], "autoApproveUsers": [12, 13]},
		"b": {"url": "https://x", "autoApprove": ["t"], "autoApproveUsers": []},
		"c": {"command": "y", "autoApprove": ["t"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if !servers[0].Trusted || !slices.Equal(servers[0].AutoApproveUsers, []int64{12, 13}) || servers[1].Trusted ||
		servers[1].AutoApproveUsers == nil || len(servers[1].AutoApproveUsers) != 0 || servers[2].AutoApproveUsers != nil {
		t.Fatalf("servers = %+v", servers)
	}
	if _, err := mcptools.Parse([]byte(`{"mcpServers": {"a": {"command": "x", "autoApproveUsers": [12]}}}`)); err == nil ||
		!strings.Contains(err.Error(), `"autoApproveUsers" names who may run the "autoApprove" tools`) {
		t.Fatalf("autoApproveUsers without autoApprove: %v", err)
	}
}
