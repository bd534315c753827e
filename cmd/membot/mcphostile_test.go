package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/internal/testing/mcpfake"
	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/pgtest"
	"github.com/membot/membot/internal/testing/telegramfake"
	"github.com/membot/membot/internal/testing/wait"
)

// A stdio MCP server, run by the real binary, looks for the bot's secrets:
// its own environment, its working directory's .env, and the bot's
// environment in /proc/<ppid>/environ. It finds none of them: it gets
// PATH, HOME and LANG and its own "env" only, a directory of its own, and
// the bot's process is not dumpable.
func TestAStdioMCPServerCannotReadTheBotsSecrets(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("PR_SET_DUMPABLE and /proc/<pid>/environ are Linux's")
	}
	// Run as root, the bot is not protected this way (docs/SECURITY.md):
	// as root the test runs it as a user of its own, as the image does.
	stdioSecrets(t, buildBinary(t), os.Geteuid() == 0)
}

// stdioSecrets runs the bot (as the user nobody when asNobody) with a
// hostile stdio server that reports what it could find.
func stdioSecrets(t *testing.T, bin string, asNobody bool) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "mcpfake")
	if out, err := exec.Command("go", "build", "-o", fake, "../../internal/testing/mcpfake/cmd/mcpfake").CombinedOutput(); err != nil {
		t.Fatalf("go build mcpfake: %v\n%s", err, out)
	}
	servers, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"hostile": map[string]any{
		"command": fake, "env": map[string]string{"GIVEN": "given-value"}, "autoApprove": []string{"secrets"}}}})
	serversFile := filepath.Join(dir, "servers.json")
	if err := os.WriteFile(serversFile, servers, 0o600); err != nil {
		t.Fatal(err)
	}
	// The bot runs where its .env lies, as a deployment does. (The bot hides
	// its secrets in what it stores: the canary and the database's URL are
	// what shows whether the server found its environment.)
	home := filepath.Join(dir, "bot")
	const dotenvSecret = "sk-dotenv-secret-of-the-bot"
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".env"), []byte("OPENAI_API_KEY="+dotenvSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	dsn := pgtest.New(t)
	tg, llm := telegramfake.New(testToken), openaifake.New()
	t.Cleanup(tg.Close)
	t.Cleanup(llm.Close)
	llm.Script(openaifake.Reply{ToolCalls: []openai.ToolCall{openaifake.ToolCall("call_secrets", "secrets", `{}`)}},
		openaifake.Reply{Content: "I looked."})
	logs := &syncBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("bot logs:\n%s", logs.String())
		}
	})
	cmd := exec.Command(bin)
	cmd.Dir, cmd.Env = home, binaryEnv(tg, llm, dsn, "MCP_SERVERS="+serversFile, "CANARY_OF_THE_BOT=canary-value")
	if asNobody {
		runAsNobody(t, cmd, dir)
	}
	startCommand(t, cmd, logs)
	if !wait.Until(20*time.Millisecond, func() bool { return strings.Contains(logs.String(), `msg="MCP server ready" mcp_server=hostile`) }) {
		t.Fatal("the MCP server did not start")
	}
	tg.SendText(jane, "what can you find?")
	if !wait.Until(20*time.Millisecond, func() bool { msgs := tg.Messages(jane.ID); return len(msgs) > 0 && msgs[0].Text == "I looked." }) {
		t.Fatalf("the chat shows %+v", tg.Messages(jane.ID))
	}
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var found string
	if err := pool.QueryRow(context.Background(), `SELECT content FROM messages WHERE tool_call_id = 'call_secrets'`).Scan(&found); err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{testToken, "sk-test-key-never-logged", dsn, dotenvSecret, "canary-value"} {
		if strings.Contains(found, secret) {
			t.Errorf("the server found %q:\n%s", secret, found)
		}
	}
	if !strings.Contains(found, "/environ: unreadable: open /proc/") || !strings.Contains(found, "permission denied") {
		t.Errorf("the bot's environment was readable:\n%s", found)
	}
	env, _, _ := strings.Cut(strings.TrimPrefix(found, "env: "), "\n")
	for _, v := range strings.Fields(env) {
		name, _, _ := strings.Cut(v, "=")
		if name != "PATH" && name != "HOME" && name != "LANG" && name != "GIVEN" {
			t.Errorf("the server got %s:\n%s", name, found)
		}
	}
	if !strings.Contains(env, "GIVEN=") || strings.Contains(found, "cwd: "+home+"\n") {
		t.Errorf("the server's environment or directory is wrong:\n%s", found)
	}
}

// runAsNobody makes cmd run as the user nobody (65534), and lets that
// user into dir and everything under it.
func runAsNobody(t *testing.T, cmd *exec.Cmd, dir string) {
	t.Helper()
	const nobody = 65534
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	for d := dir; d != filepath.Dir(d) && strings.HasPrefix(d, os.TempDir()+"/"); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := filepath.Walk(dir, func(path string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, nobody, nobody)
	}); err != nil {
		t.Fatal(err)
	}
}

// The real binary against two hostile HTTP MCP servers: one sends an
// endless line on the stream it keeps open, one answers a call with an
// event of 128 MiB. Each is disconnected; the bot answers on, and its
// peak memory stays far below what they sent.
func TestHostileMCPServersCostTheBotLittleMemory(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the peak memory is read from /proc/<pid>/status")
	}
	bin := buildBinary(t)
	endless := mcpfake.NewHTTP(mcpfake.Options{Versions: []string{"2025-06-18"}})
	t.Cleanup(endless.Close)
	endless.Misbehave(mcpfake.EndlessLine)
	huge := mcpfake.NewHTTP(mcpfake.Options{Versions: []string{"2025-06-18"}})
	t.Cleanup(huge.Close)
	servers, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"endless": map[string]any{"url": endless.URL()}, "huge": map[string]any{"url": huge.URL(), "autoApprove": []string{"echo"}}}})
	serversFile := filepath.Join(t.TempDir(), "servers.json")
	if err := os.WriteFile(serversFile, servers, 0o600); err != nil {
		t.Fatal(err)
	}
	dsn := pgtest.New(t)
	tg, llm := telegramfake.New(testToken), openaifake.New()
	t.Cleanup(tg.Close)
	t.Cleanup(llm.Close)
	logs := &syncBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("bot logs:\n%s", logs.String())
		}
	})
	p := startBinary(t, bin, binaryEnv(tg, llm, dsn, "MCP_SERVERS="+serversFile), logs)
	waitLog := func(what string) {
		t.Helper()
		if !wait.Until(20*time.Millisecond, func() bool { return strings.Contains(logs.String(), what) }) {
			t.Fatalf("the log never said %s", what)
		}
	}
	waitLog(`msg="the MCP server broke a bound; it is disconnected" mcp_server=endless err="disconnected: it sent an event longer than 4 MiB"`)
	waitLog(`msg="MCP server ready" mcp_server=huge`)
	huge.Misbehave(mcpfake.HugeEvent)
	llm.Script(openaifake.Reply{ToolCalls: []openai.ToolCall{openaifake.ToolCall("call_huge", "huge_echo", `{"text":"hi"}`)}},
		openaifake.Reply{Content: "The server failed."})
	for i, text := range []string{"call it", "still there?"} {
		tg.SendText(jane, text)
		if !wait.Until(20*time.Millisecond, func() bool { return len(tg.Messages(jane.ID)) > i }) {
			t.Fatalf("no answer to %q: %+v", text, tg.Messages(jane.ID))
		}
	}
	if got := tg.Messages(jane.ID); got[0].Text != "The server failed." || got[1].Text != "echo: still there?" {
		t.Fatalf("the chat shows %+v", got)
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	var peak int
	for _, line := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			fmt.Sscanf(strings.TrimPrefix(line, "VmHWM:"), "%d", &peak)
		}
	}
	t.Logf("the servers' clients took %d and %d MiB; the bot's peak resident memory: %d MiB", endless.Sent()>>20, huge.Sent()>>20, peak>>10)
	if peak == 0 || peak > 160<<10 {
		t.Fatalf("the bot's peak resident memory was %d MiB", peak>>10)
	}
}
