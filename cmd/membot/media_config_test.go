package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membot/membot/internal/testing/testkit"
)

// The settings of voice messages, photos and files: defaults, the chat
// model's server when theirs is not set, an empty model meaning off (even
// over .env), and one clear line for a bad value.
func TestMediaSettings(t *testing.T) {
	t.Parallel()
	base := func() map[string]string {
		return map[string]string{"ENV_FILE": "/dev/null", "TELEGRAM_BOT_TOKEN": "1:a", "DATABASE_URL": "postgres://x@localhost/db",
			"OPENAI_BASE_URL": "http://llm.local/v1", "OPENAI_API_KEY": "sk-chat"}
	}
	cfg, err := loadConfig(testkit.Lookup(base()))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Agent.TranscriptionModel != "whisper-1" || cfg.LLM.Transcription.BaseURL != "http://llm.local/v1" || cfg.LLM.Transcription.APIKey != "sk-chat" ||
		!cfg.Bot.Media.ShowHeard || cfg.Agent.Vision != "auto" || cfg.Agent.ImageHistory != 2 || cfg.Bot.Media.FileChars != 20000 ||
		cfg.Bot.Media.FileBytes != 20<<20 || cfg.Agent.TTSModel != "tts-1" || cfg.Agent.TTSVoice != "alloy" || cfg.LLM.Speech.BaseURL != "http://llm.local/v1" {
		t.Errorf("defaults: %+v", cfg)
	}

	file := filepath.Join(t.TempDir(), ".env")
	if err := os.WriteFile(file, []byte("TRANSCRIPTION_MODEL=\nTTS_MODEL=gpt-4o-mini-tts\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := base()
	env["ENV_FILE"], env["TTS_MODEL"] = file, ""
	if cfg, err = loadConfig(testkit.Lookup(env)); err != nil || cfg.Agent.TranscriptionModel != "" || cfg.Agent.TTSModel != "" {
		t.Errorf("empty models: %q, %q, %v; want both off", cfg.Agent.TranscriptionModel, cfg.Agent.TTSModel, err)
	}

	for key, value := range map[string]string{"VISION": "maybe", "TRANSCRIPT_ECHO": "loud", "IMAGE_HISTORY": "50",
		"FILE_CHARS": "ten", "FILE_MAX_BYTES": "30000000", "TRANSCRIPTION_BASE_URL": "whisper.local:9000", "TTS_BASE_URL": "ftp://x"} {
		env := base()
		env[key] = value
		var out syncBuffer
		err := run(context.Background(), []string{"membot"}, testkit.Lookup(env), &out, &out)
		var cfgErr *configError
		if !errors.As(err, &cfgErr) || !strings.HasPrefix(err.Error(), key+":") {
			t.Errorf("%s=%s: run = %v, want a config error naming it", key, value, err)
		}
	}
}
