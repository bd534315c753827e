package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The image's build context leaves out the secrets (.env and its
// variants), the git history and local builds, and keeps what the build
// needs: .dockerignore read as Docker reads it (patterns in order, "!"
// takes a path back in; a pattern that names a directory covers what is
// inside; **/ matches at any depth).
func TestTheBuildContextLeavesOutSecretsAndHistory(t *testing.T) {
	raw, err := os.ReadFile("../../.dockerignore")
	if err != nil {
		t.Fatalf("no .dockerignore: the build context takes .env and .git: %v", err)
	}
	var patterns []string
	for _, line := range strings.Split(string(raw), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			patterns = append(patterns, line)
		}
	}
	ignored := func(path string) bool {
		out := false
		for _, p := range patterns {
			back := strings.HasPrefix(p, "!")
			p = strings.TrimPrefix(p, "!")
			anywhere := strings.HasPrefix(p, "**/") // at any depth
			p = strings.TrimPrefix(p, "**/")
			for dir := path; dir != "."; dir = filepath.Dir(dir) {
				name := dir
				if anywhere {
					name = filepath.Base(dir)
				}
				if ok, _ := filepath.Match(p, name); ok {
					out = !back
					break
				}
			}
		}
		return out
	}
	for _, path := range []string{".env", ".env.production", ".git", ".git/config", "membot", "bot/bot.test", "cover.out"} {
		if !ignored(path) {
			t.Errorf("%s is sent to the docker build", path)
		}
	}
	for _, path := range []string{".env.example", "go.mod", "go.sum", "cmd/membot/main.go", "migrations/00001_core.sql", "Dockerfile"} {
		if ignored(path) {
			t.Errorf("%s is left out of the docker build", path)
		}
	}
}
