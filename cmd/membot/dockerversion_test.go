package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// docker compose stamps the version `membot version` prints: it passes the
// clone's .git to the build as the context "git", and the Dockerfile's
// build step names the binary's version by git describe there, unless
// VERSION is given, and devel only when there is neither.
func TestTheImageIsStampedWithTheClonesVersion(t *testing.T) {
	compose, err := os.ReadFile("../../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^      additional_contexts:\n        git: \.git\n      args:\n        VERSION: \$\{MEMBOT_VERSION:-\}$`).Match(compose) {
		t.Error("docker-compose.yml does not give the build the clone's .git as the context git and MEMBOT_VERSION as VERSION")
	}
	dockerfile, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(dockerfile), "FROM scratch AS git\n") || !strings.Contains(string(dockerfile), "--mount=type=bind,from=git,target=/git") {
		t.Error("the Dockerfile does not mount the context git (with an empty stage of that name for a plain docker build)")
	}
	m := regexp.MustCompile(`(?m)^\s*(v="\$\{VERSION:-.*\}") && \\\n\s*CGO_ENABLED=0 go build .*-X main\.version=\$v"`).FindSubmatch(dockerfile)
	if m == nil {
		t.Fatal("the Dockerfile's build step does not stamp main.version with $v")
	}
	// The step's own shell line, run against a tagged history, an empty
	// context, and a given VERSION.
	tagged := t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x"}, {"tag", "v1.2.3"}} {
		if out, err := exec.Command("git", append([]string{"-C", tagged}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	for _, c := range []struct{ gitDir, version, want string }{
		{tagged + "/.git", "", "v1.2.3"},
		{t.TempDir(), "", "devel"},
		{tagged + "/.git", "v9", "v9"},
	} {
		line := strings.ReplaceAll(string(m[1]), "/git", c.gitDir) + `; printf %s "$v"`
		cmd := exec.Command("sh", "-c", line)
		cmd.Env = append(os.Environ(), "VERSION="+c.version)
		out, err := cmd.Output()
		if err != nil || string(out) != c.want {
			t.Errorf("git dir %s, VERSION=%q: the build names the version %q (%v), want %q", c.gitDir, c.version, out, err, c.want)
		}
	}
}
