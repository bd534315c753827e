package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/internal/testing/mcpfake"
	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/searchfake"
	"github.com/membot/membot/internal/testing/telegramfake"
	"github.com/membot/membot/internal/testing/testkit"
	"github.com/membot/membot/internal/testing/wait"
)

// runDoctorCmd runs `membot doctor` with the harness's settings and returns
// what it printed; no secret may be in it.
func runDoctorCmd(t *testing.T, h *harness) (string, error) {
	t.Helper()
	return runDoctorWithin(t, h, wait.Timeout())
}

// runDoctorWithin is runDoctorCmd with each call bounded by timeout.
func runDoctorWithin(t *testing.T, h *harness, timeout time.Duration) (string, error) {
	t.Helper()
	var out, logs syncBuffer
	err := run(context.Background(), []string{"membot", "doctor", "-timeout", timeout.String()}, testkit.Lookup(h.Env), &out, &logs)
	for _, secret := range []string{testkit.Token, testkit.APIKey, "web-token-never-logged"} {
		if strings.Contains(out.String()+logs.String(), secret) {
			t.Errorf("a secret is in what doctor printed:\n%s\n%s", out.String(), logs.String())
		}
	}
	if t.Failed() || err != nil {
		t.Logf("membot doctor printed:\n%s\nand logged:\n%s", out.String(), logs.String())
	}
	return out.String(), err
}

// mcpServersFile writes servers as the harness's MCP_SERVERS file.
func mcpServersFile(t *testing.T, h *harness, servers map[string]any) {
	t.Helper()
	raw, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "servers.json")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	h.Env["MCP_SERVERS"] = path
}

// stdioMCP is an entry that starts this test binary as a stdio MCP server,
// in mode (mcpfake.ModeEnv; "" serves).
func stdioMCP(t *testing.T, mode string) map[string]any {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{"command": self, "env": map[string]string{mcpfake.ServeEnv: "1", mcpfake.ModeEnv: mode}}
}

// parts are the parts the lines name, in order.
func parts(out string) []string {
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^[✓✗–] ([^:]+):`).FindAllStringSubmatch(out, -1) {
		names = append(names, m[1])
	}
	return names
}

// With every part set and working, each gets a ✓ line, in a fixed order,
// and doctor succeeds (exit 0).
func TestDoctorSaysEveryPartWorks(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.LLM.RequireKey(testkit.APIKey)
	h.LLM.HasModels("test-model", "other-model")
	web := mcpfake.NewHTTP(mcpfake.Options{Versions: []string{"2025-06-18"}})
	t.Cleanup(web.Close)
	web.Require("Authorization", "Bearer web-token-never-logged")
	mcpServersFile(t, h, map[string]any{
		"files": stdioMCP(t, ""),
		"web":   map[string]any{"url": web.URL(), "headers": map[string]string{"Authorization": "Bearer web-token-never-logged"}},
	})
	search := searchfake.New("")
	t.Cleanup(search.Close)
	search.Find(searchfake.Result{Title: "membot", URL: "https://example.com/membot", Snippet: "a bot"})
	for k, v := range map[string]string{"MODELS": "other-model", "SEARXNG_URL": search.URL, "TRANSCRIPTION_MODEL": "whisper-1",
		"TTS_MODEL": "tts-1", "IMAGE_MODEL": "gpt-image-1", "ALLOWED_USER_IDS": "502", "VISION": "on",
		// A URL with a password: the requests carry the key, and the password is never printed.
		"OPENAI_BASE_URL": strings.Replace(h.LLM.URL(), "http://", "http://doctor:pass-never-printed@", 1)} {
		h.Env[k] = v
	}
	out, err := runDoctorCmd(t, h)
	if strings.Contains(out, "pass-never-printed") || !strings.Contains(out, "http://<redacted>@127.0.0.1") {
		t.Errorf("the model server's URL is not printed without its password")
	}
	if err != nil || strings.Contains(out, "✗") {
		t.Fatalf("doctor = %v with a failed line; want every line ✓ or –", err)
	}
	want := []string{"database", "telegram", "telegram intake",
		"model test-model", "model test-model streaming", "model test-model tools", "model test-model images",
		"model other-model", "model other-model streaming", "model other-model tools", "model other-model images",
		"embeddings", "transcription whisper-1", "speech tts-1", "pictures gpt-image-1",
		"mcp files (stdio)", "mcp web (http)", "tool definitions", "web search SearXNG", "access"}
	if got := parts(out); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the parts, in order:\n%q\nwant\n%q", got, want)
	}
	for _, line := range []string{
		"✓ telegram: the token is @membot_test_bot's",
		"✓ telegram intake: polling (no webhook set)",
		"✓ model test-model tools: calls a tool when asked to (current_time)",
		"– embeddings: EMBEDDINGS_MODEL is not set",
		"✓ mcp files (stdio): started; 10 tools, ~",
		"✓ web search SearXNG: answered a query with 1 result",
		"✓ access: allowlist: 1 user, 0 chats; 0 admins",
		"everything set works",
	} {
		if !strings.Contains(out, line) {
			t.Errorf("no line %q in\n%s", line, out)
		}
	}
	if !regexp.MustCompile(`(?m)^✓ database: PostgreSQL \d+(\.\d+)?, \S+@127\.0\.0\.1:\d+/\S+ \(DATABASE_URL\); \d+ migrations applied, (none|\d+) pending`).MatchString(out) {
		t.Errorf("the database's line does not say the server, the version and the migrations")
	}
}

// Each way a part can fail gets its ✗ line with the cause in words and
// the fix, and doctor fails (exit 1).
func TestDoctorSaysWhatFailsAndTheFix(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, h *harness)
		want  []string // the ✗ line and its fix
	}{
		{"the key refused", func(t *testing.T, h *harness) { h.LLM.RequireKey("sk-another-key") }, []string{
			"✗ model test-model: the key was refused (401: Incorrect API key provided.",
			"    fix: check OPENAI_API_KEY",
			// The servers of voice default to the chat model's, with its key.
			"✗ transcription whisper-1: the key was refused (401: Incorrect API key provided.",
			"    fix: check TRANSCRIPTION_API_KEY",
			"✗ speech tts-1: the key was refused (401: Incorrect API key provided.",
			"    fix: check TTS_API_KEY"}},
		{"no such model", func(t *testing.T, h *harness) {
			h.Env["OPENAI_MODEL"] = "gpt-4o-mni"
			h.LLM.HasModels("dall-e-3", "gpt-4o", "gpt-4o-mini", "llama3.1:8b", "o4-mini")
		}, []string{
			// The names most like the one set come first.
			"✗ model gpt-4o-mni: no model gpt-4o-mni on this server; it has: gpt-4o-mini, gpt-4o, dall-e-3, llama3.1:8b, o4-mini\n",
			"    fix: check OPENAI_MODEL and MODELS"}},
		{"a model that ignores tools", func(t *testing.T, h *harness) {
			h.LLM.RespondWith(func(openai.ChatCompletionRequest) openaifake.Reply { return openaifake.Reply{Content: "It is noon."} })
		}, []string{
			"✗ model test-model tools: offered a tool and required to call it, the model answered in words: it (or its server) ignores tools",
			"    fix: use a model that calls tools"}},
		{"a server that refuses tools", func(t *testing.T, h *harness) {
			h.LLM = openaifake.NewDialect(openaifake.DialectNamed("llamacpp-nojinja"))
			t.Cleanup(h.LLM.Close)
			h.Env["OPENAI_BASE_URL"] = h.LLM.URL()
		}, []string{
			"✗ model test-model tools: a request with a tool was refused: the model server answered 500: tools param requires --jinja flag",
			"    fix: use a model that calls tools"}},
		{"an MCP server that does not start", func(t *testing.T, h *harness) {
			mcpServersFile(t, h, map[string]any{"broken": stdioMCP(t, "crash-on-start"),
				"missing": map[string]any{"command": "/nonexistent/mcp-server"}})
		}, []string{
			"✗ mcp broken (stdio): the MCP server broken failed to start: ",
			"exit status 3); it said: mcpfake: crashing on start as asked",
			"✗ mcp missing (stdio): the MCP server missing failed to start: fork/exec /nonexistent/mcp-server: no such file or directory",
			"    fix: check its entry in MCP_SERVERS"}},
		{"the token refused", func(t *testing.T, h *harness) { h.Env["TELEGRAM_BOT_TOKEN"] = "654321:ANOTHER-token" }, []string{
			"✗ telegram: the token was refused (401: Unauthorized)",
			"    fix: check TELEGRAM_BOT_TOKEN: copy it again from @BotFather"}},
		{"Telegram refuses the connection", func(t *testing.T, h *harness) { h.Env["TELEGRAM_API_URL"] = "http://127.0.0.1:1" }, []string{
			"✗ telegram: nothing listens at 127.0.0.1:1 (connection refused)",
			"    fix: check TELEGRAM_API_URL and that the Bot API server runs"}},
		{"a webhook while polling", func(t *testing.T, h *harness) { h.TG.SetWebhook("https://old.example/hook/s3cret", "s") }, []string{
			"✗ telegram intake: MODE=polling, but a webhook is set (to https://old.example)",
			"    fix: stop the other deployment, or set MODE=webhook"}},
		{"the webhook's last error", func(t *testing.T, h *harness) {
			h.Env["MODE"], h.Env["WEBHOOK_URL"] = "webhook", "https://bot.example/telegram"
			h.TG.Handle("getWebhookInfo", func(telegramfake.Call) (any, *telegramfake.Fault) {
				return map[string]any{"url": "https://bot.example/telegram", "pending_update_count": 3,
					"last_error_date": 1700000000, "last_error_message": "Connection timed out"}, nil
			})
		}, []string{
			"✗ telegram intake: Telegram's last post to https://bot.example failed at 2023-11-14 22:13 UTC: Connection timed out",
			"    fix: make WEBHOOK_URL reach this host"}},
		{"the search key refused", func(t *testing.T, h *harness) {
			search := searchfake.New("brave-key-never-logged")
			t.Cleanup(search.Close)
			h.Env["BRAVE_API_KEY"], h.Env["BRAVE_SEARCH_URL"] = "wrong-brave-key", search.URL+"/res/v1/web/search"
		}, []string{
			`✗ web search Brave: the key was refused (401: {"type":"ErrorResponse","error":{"code":"SUBSCRIPTION_TOKEN_INVALID"}})`,
			"    fix: check BRAVE_API_KEY"}},
		{"no database", func(t *testing.T, h *harness) { h.Env["DATABASE_URL"] = "postgres://postgres@127.0.0.1:1/membot" }, []string{
			"✗ database: nothing listens at 127.0.0.1:1 (connection refused)",
			"    fix: check DATABASE_URL"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			tc.setup(t, h)
			out, err := runDoctorCmd(t, h)
			if !errors.Is(err, errChecksFailed) || fatal(&syncBuffer{}, testkit.Lookup(nil), err) != 1 {
				t.Errorf("doctor = %v; want the checks failed, exit 1", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("no %q in what doctor printed", w)
				}
			}
			if n := len(regexp.MustCompile(`(?m)^✗`).FindAllString(out, -1)); n != strings.Count(strings.Join(tc.want, "\n"), "✗") {
				t.Errorf("%d lines failed; want only those of the failure made", n)
			}
		})
	}
}

// A part that does not answer fails its check at the timeout, and the
// others are not held up by it: they run at once.
func TestDoctorBoundsEachCheckInTime(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	h.TG.Inject(telegramfake.Fault{Method: "getMe", Hold: release, Times: 1})
	h.LLM.RespondWith(func(req openai.ChatCompletionRequest) openaifake.Reply {
		return openaifake.Reply{Content: "OK", Delay: time.Hour}
	})
	const timeout = time.Second
	start := time.Now()
	out, err := runDoctorWithin(t, h, timeout)
	took := time.Since(start)
	if !errors.Is(err, errChecksFailed) {
		t.Errorf("doctor = %v; want the checks failed", err)
	}
	tgHost := strings.TrimPrefix(h.TG.URL(), "http://")
	llmHost := strings.TrimPrefix(strings.TrimSuffix(h.LLM.URL(), "/v1"), "http://")
	for _, w := range []string{"✗ telegram: no answer from " + tgHost + " in time", "✗ model test-model: no answer from " + llmHost + " in time",
		"    fix: check OPENAI_BASE_URL, the network and firewalls"} {
		if !strings.Contains(out, w) {
			t.Errorf("no %q in what doctor printed", w)
		}
	}
	// One after another, the two checks that wait would take 2 timeouts.
	if took >= 2*timeout {
		t.Errorf("doctor took %v with a timeout of %v a call", took, timeout)
	}
}

// With DATABASE_URL unset, doctor starts the embedded PostgreSQL as the
// bot would, and says that no one else reaches it.
func TestDoctorChecksTheEmbeddedDatabase(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	delete(h.Env, "DATABASE_URL")
	h.Env["DATA_DIR"] = reachableTempDir(t)
	out, err := runDoctorCmd(t, h)
	if err != nil {
		t.Fatalf("doctor = %v", err)
	}
	for _, w := range []string{"✓ database: PostgreSQL ", "(embedded in " + h.Env["DATA_DIR"] + "); 0 migrations applied, ",
		"✓ database access: only this account: no TCP port, the socket in DATA_DIR (0700), a password for every login"} {
		if !strings.Contains(out, w) {
			t.Errorf("no %q in what doctor printed", w)
		}
	}
}

// With EMBEDDINGS_MODEL set, doctor embeds a word and says whether the
// database can keep the vectors (pgvector): ✓ where it is available, ✗
// with the fix where it is not.
func TestDoctorChecksEmbeddingsAndPgvector(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.Env["EMBEDDINGS_MODEL"] = "text-embedding-3-small"
	var available bool
	if err := h.DB.QueryRow(context.Background(), `SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector')`).Scan(&available); err != nil {
		t.Fatal(err)
	}
	out, err := runDoctorCmd(t, h)
	if !strings.Contains(out, "✓ embeddings text-embedding-3-small: a vector of ") {
		t.Errorf("no ✓ line for the embeddings")
	}
	if available {
		if err != nil || !regexp.MustCompile(`(?m)^✓ pgvector: (installed|available)`).MatchString(out) {
			t.Errorf("doctor = %v; want ✓ pgvector on a database that has it", err)
		}
		return
	}
	if !errors.Is(err, errChecksFailed) || !strings.Contains(out, "✗ pgvector: EMBEDDINGS_MODEL is set, but this PostgreSQL has no pgvector: recall is full-text search alone\n"+
		"    fix: install pgvector on the database server (Debian: postgresql-NN-pgvector), or unset EMBEDDINGS_MODEL") {
		t.Errorf("doctor = %v; want ✗ pgvector with its fix on a database without it", err)
	}
}

// A model that thinks in <think> tags (LM Studio, vLLM's reasoning
// models): doctor says so, and that the bot keeps them apart.
func TestDoctorSaysHowAModelThinks(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.LLM = openaifake.NewDialect(openaifake.DialectNamed("lmstudio"))
	t.Cleanup(h.LLM.Close)
	h.Env["OPENAI_BASE_URL"] = h.LLM.URL()
	h.LLM.RespondWith(func(req openai.ChatCompletionRequest) openaifake.Reply {
		if req.ToolChoice == "required" {
			return openaifake.Reply{ToolCalls: []openai.ToolCall{openaifake.ToolCall("call_1", req.Tools[0].Function.Name, "{}")}}
		}
		return openaifake.Reply{Reasoning: "The user wants one word.", Content: "OK"}
	})
	out, err := runDoctorCmd(t, h)
	if err != nil || !strings.Contains(out, "✓ model test-model streaming: the answer streams; its thinking comes in <think> tags, kept apart from the answer") {
		t.Errorf("doctor = %v; want the streaming line to say the thinking comes in <think> tags", err)
	}
}

// In owner mode doctor reads the claim from the database: unclaimed, it
// shows the link the start-up log shows (the same code); claimed, it says so.
func TestDoctorShowsTheClaimLinkUntilTheBotIsClaimed(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	delete(h.Env, "ACCESS")
	out, _ := runDoctorCmd(t, h)
	link := regexp.MustCompile(`(?m)^– access: owner mode, not claimed yet: the bot answers no one until you open https://t\.me/membot_test_bot\?start=(\w+) in Telegram`).FindStringSubmatch(out)
	if link == nil {
		t.Fatalf("no claim line:\n%s", out)
	}
	if again, _ := runDoctorCmd(t, h); !strings.Contains(again, "?start="+link[1]) {
		t.Errorf("a second run shows another code:\n%s", again)
	}
	h.Start()
	h.Say(jane, "/start "+link[1])
	h.Stop()
	if out, _ := runDoctorCmd(t, h); !strings.Contains(out, "✓ access: owner mode: claimed") {
		t.Errorf("after the claim:\n%s", out)
	}
}
