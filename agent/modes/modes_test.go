package modes

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestModesFilesInYAMLAndJSON(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		"modes.yaml": "modes:\n  - name: pirate\n    description: talks like a pirate\n    prompt: |\n      Talk like a pirate.\n  - name: coder\n    prompt: Only Go.\n",
		"modes.json": `{"modes": [{"name": "pirate", "description": "talks like a pirate", "prompt": "Talk like a pirate.\n"}, {"name": "coder", "prompt": "Only Go."}]}`,
	}
	for name, content := range files {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(content), 0o600)
		extra, err := ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		modes, err := New("BASE", extra)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var names []string
		for _, m := range modes.List() {
			names = append(names, m.Name)
		}
		if strings.Join(names, ",") != "default,concise,translator,coder,pirate" {
			t.Errorf("%s: modes = %v", name, names)
		}
		if got := modes.SystemPrompt("pirate"); got != "BASE\n\nTalk like a pirate." {
			t.Errorf("%s: pirate prompt = %q", name, got)
		}
		if got := modes.SystemPrompt("coder"); got != "BASE\n\nOnly Go." {
			t.Errorf("%s: a file mode did not replace the built-in: %q", name, got)
		}
		if got := modes.SystemPrompt("gone"); got != "BASE" {
			t.Errorf("%s: an unknown mode gets %q, want the default's", name, got)
		}
	}
}

func TestBadModesAreRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for content, want := range map[string]string{
		"modes:\n  - name: Pirate Mode\n    prompt: x\n":                   "lowercase",
		"modes:\n  - name: a\n    prompt: x\n  - name: a\n    prompt: y\n": "twice",
		"modes:\n  - name: empty\n":                                        "no prompt",
		"modes:\n  - name: a\n    promt: x\n":                              "promt",
		"name: a\n":                                                        "name",
		"":                                                                 "no modes",
		"modes: [":                                                         "parse",
	} {
		path := filepath.Join(dir, "m.yaml")
		os.WriteFile(path, []byte(content), 0o600)
		extra, err := ReadFile(path)
		if err == nil {
			_, err = New("BASE", extra)
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want one mentioning %q", content, err, want)
		}
	}
	if _, err := ReadFile(filepath.Join(dir, "missing.yaml")); err == nil {
		t.Error("a missing file was accepted")
	}
}
