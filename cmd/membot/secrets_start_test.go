package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membot/membot/internal/testing/testkit"
)

// A setting that stops start-up is named, never shown with a secret in
// it: a malformed URL setting holding a key in its credentials or query,
// a URL that quotes the bot token or an API key, a MODELS entry, and a
// .env the parser cannot read. Each as the binary reports it (run, then
// fatal), in text and in JSON.
func TestAStartUpErrorNeverShowsASecret(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	badEnv := filepath.Join(dir, "bad.env")
	if err := os.WriteFile(badEnv, []byte("LOG_LEVEL=info\nOPENAI_API_KEY \"sk-env-file-secret-1\nTELEGRAM_BOT_TOKEN=123456:ENV-file-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	unclosed := filepath.Join(dir, "unclosed.env")
	if err := os.WriteFile(unclosed, []byte("OPENAI_API_KEY=\"sk-env-file-secret-2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		env     map[string]string
		setting string
		secrets []string
	}{
		{"OPENAI_BASE_URL set to a bare key", map[string]string{"OPENAI_BASE_URL": "sk-bare-key-secret"},
			"OPENAI_BASE_URL", []string{"sk-bare-key-secret"}},
		{"OPENAI_BASE_URL with a key as its password", map[string]string{"OPENAI_BASE_URL": "htps://user:sk-url-password-secret@api.example.com/v1"},
			"OPENAI_BASE_URL", []string{"sk-url-password-secret"}},
		{"OPENAI_BASE_URL with a key as its user", map[string]string{"OPENAI_BASE_URL": "https//sk-url-user-secret@api.example.com/v1"},
			"OPENAI_BASE_URL", []string{"sk-url-user-secret"}},
		{"OPENAI_BASE_URL with a key in its query", map[string]string{"OPENAI_BASE_URL": "ftp://api.example.com/v1?key=sk-url-query-secret"},
			"OPENAI_BASE_URL", []string{"sk-url-query-secret"}},
		{"the API key pasted into the URL", map[string]string{"OPENAI_API_KEY": "sk-pasted-key-secret", "OPENAI_BASE_URL": "sk-pasted-key-secret"},
			"OPENAI_BASE_URL", []string{"sk-pasted-key-secret"}},
		{"TELEGRAM_API_URL quoting the token", map[string]string{"TELEGRAM_API_URL": "api.telegram.org/bot" + testkit.Token},
			"TELEGRAM_API_URL", []string{testkit.Token}},
		{"IMAGE_BASE_URL with its key", map[string]string{"IMAGE_API_KEY": "sk-image-key-secret", "IMAGE_BASE_URL": "images.example.com?api_key=sk-image-key-secret"},
			"IMAGE_BASE_URL", []string{"sk-image-key-secret"}},
		{"TTS_BASE_URL", map[string]string{"TTS_BASE_URL": "htps://:sk-tts-secret@tts.example.com"}, "TTS_BASE_URL", []string{"sk-tts-secret"}},
		{"TRANSCRIPTION_BASE_URL", map[string]string{"TRANSCRIPTION_BASE_URL": "htps://:sk-stt-secret@stt.example.com"}, "TRANSCRIPTION_BASE_URL", []string{"sk-stt-secret"}},
		{"EMBEDDINGS_BASE_URL", map[string]string{"EMBEDDINGS_BASE_URL": "htps://:sk-emb-secret@emb.example.com"}, "EMBEDDINGS_BASE_URL", []string{"sk-emb-secret"}},
		{"SEARXNG_URL", map[string]string{"SEARXNG_URL": "htps://admin:searx-secret-pw@search.example.com"}, "SEARXNG_URL", []string{"searx-secret-pw"}},
		{"BRAVE_SEARCH_URL", map[string]string{"BRAVE_API_KEY": "brave-key-secret", "BRAVE_SEARCH_URL": "brave-key-secret"}, "BRAVE_SEARCH_URL", []string{"brave-key-secret"}},
		{"TAVILY_SEARCH_URL", map[string]string{"TAVILY_SEARCH_URL": "htps://api.tavily.com/search?api_key=tvly-secret-key"}, "TAVILY_SEARCH_URL", []string{"tvly-secret-key"}},
		{"a MODELS entry", map[string]string{"MODELS": "gpt-4o, llama http://user:sk-models-secret@[::1/v1"}, "MODELS", []string{"sk-models-secret"}},
		{"WEBHOOK_URL", map[string]string{"MODE": "webhook", "WEBHOOK_URL": "http://bot.example.com/hook?secret=hook-url-secret"}, "WEBHOOK_URL", []string{"hook-url-secret"}},
		{"a .env the parser refuses", map[string]string{"ENV_FILE": badEnv}, "bad.env", []string{"sk-env-file-secret-1", "ENV-file-token"}},
		{"a .env with a quote left open", map[string]string{"ENV_FILE": unclosed}, "unclosed.env", []string{"sk-env-file-secret-2"}},
	} {
		for _, format := range []string{"text", "json"} {
			env := map[string]string{"ENV_FILE": "/dev/null", "LOG_FORMAT": format, "TELEGRAM_BOT_TOKEN": testkit.Token,
				"DATABASE_URL": "postgres://membot@127.0.0.1:1/membot"}
			for k, v := range c.env {
				env[k] = v
			}
			var out, stderr bytes.Buffer
			runErr := run(context.Background(), []string{"membot"}, testkit.Lookup(env), &out, &out)
			if runErr == nil {
				t.Fatalf("%s: membot started", c.name)
			}
			code := fatal(&stderr, testkit.Lookup(env), runErr)
			shown := stderr.String() + out.String()
			if code != 2 || !strings.Contains(shown, c.setting) {
				t.Errorf("%s (%s): exit %d, %q; want 2 and the setting named", c.name, format, code, shown)
			}
			for _, secret := range c.secrets {
				if strings.Contains(shown, secret) {
					t.Errorf("%s (%s): the secret %q is shown: %q", c.name, format, secret, shown)
				}
			}
		}
	}
}

// A URL setting that holds a secret in its credentials and is well
// formed, so the bot starts, keeps it out of the logs and the store: the
// start line shows the model server's URL redacted.
func TestTheCredentialsOfAURLSettingAreNeverLogged(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	const password = "sk-url-password-never-logged"
	h.Env["OPENAI_BASE_URL"] = strings.Replace(h.LLM.URL(), "://", "://user:"+password+"@", 1)
	h.Start()
	if got := h.Say(testkit.Jane, "hello"); got != "echo: hello" {
		t.Fatalf("reply = %q", got)
	}
	h.WaitLog(`msg="membot starting".* llm=`)
	logs := h.Logs.String()
	if strings.Contains(logs, password) {
		t.Errorf("the password is in the logs:\n%s", logs)
	}
	if !strings.Contains(logs, "llm=http://<redacted>@127.0.0.1") {
		t.Errorf("the start line does not show the model server redacted:\n%s", logs)
	}
}
