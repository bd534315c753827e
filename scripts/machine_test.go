// Package scripts holds the shell scripts of the project; its test reads
// what `make test` runs and fails on anything that would change the
// machine outside the clone and the temp folder.
package scripts

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// machineChange is one way a shell line changes the machine.
type machineChange struct {
	why string
	bad func(line string) bool
}

var (
	aptGet          = regexp.MustCompile(`\bapt-get\b`)
	aptInstall      = regexp.MustCompile(`\b(apt|apt-get|aptitude)\b.*\s(install|build-dep)\b`)
	dpkgInstall     = regexp.MustCompile(`\bdpkg\s+(.*\s)?(-i|--install|--unpack|--configure)\b`)
	makeInstall     = regexp.MustCompile(`\bmake\b.*\sinstall\b`)
	message         = regexp.MustCompile(`^(log|echo|printf)\s`)
	quoted          = regexp.MustCompile(`"(\\.|[^"\\])*"|'[^']*'`)
	privateAptFlags = []string{"Dir::Etc::SourceList=", "Dir::Etc::SourceParts=/nonexistent", "Dir::State::Lists=", "Dir::Cache="}
)

var machineChanges = []machineChange{
	{"installs a package", aptInstall.MatchString},
	{"installs a package with dpkg", dpkgInstall.MatchString},
	{"runs apt-get on the machine's own configuration (give it the private Dir:: options)", func(l string) bool {
		if !aptGet.MatchString(l) {
			return false
		}
		for _, flag := range privateAptFlags {
			if !strings.Contains(l, flag) {
				return true
			}
		}
		return false
	}},
	{"touches the machine's apt sources", func(l string) bool {
		return strings.Contains(l, "sources.list.d") || regexp.MustCompile(`(>|tee\s.*)\s*/etc/apt`).MatchString(l)
	}},
	{"installs into the machine (make install without DESTDIR)", func(l string) bool {
		return makeInstall.MatchString(l) && !strings.Contains(l, "DESTDIR=")
	}},
	{"adds a user or group", regexp.MustCompile(`\b(useradd|adduser|groupadd|addgroup)\b`).MatchString},
	{"asks for root (sudo)", regexp.MustCompile(`\bsudo\b`).MatchString},
}

// changes returns the lines of a shell script that change the machine,
// each with why. Continued lines are read as one; comments are skipped.
func changes(script string) []string {
	var found []string
	joined := strings.ReplaceAll(script, "\\\n", " ")
	for _, line := range strings.Split(joined, "\n") {
		code := strings.TrimSpace(line)
		if code == "" || strings.HasPrefix(code, "#") {
			continue
		}
		if message.MatchString(code) { // what a message says is not run
			code = quoted.ReplaceAllString(code, `""`)
		}
		for _, c := range machineChanges {
			if c.bad(code) {
				found = append(found, c.why+": "+code)
			}
		}
	}
	return found
}

// testScripts returns the scripts `make test` runs: those the Makefile's
// test target names, and those they name in turn.
func testScripts(t *testing.T) map[string]string {
	t.Helper()
	makefile, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	var recipe strings.Builder
	in := false
	for _, line := range strings.Split(string(makefile), "\n") {
		switch {
		case strings.HasPrefix(line, "test:"):
			in = true
		case in && strings.HasPrefix(line, "\t"):
			recipe.WriteString(line + "\n")
		case in:
			in = false
		}
	}
	if recipe.Len() == 0 {
		t.Fatal("the Makefile has no test target")
	}
	scripts := map[string]string{"Makefile test target": recipe.String()}
	named := regexp.MustCompile(`scripts/[\w.-]+\.sh`)
	queue := named.FindAllString(recipe.String(), -1)
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if _, seen := scripts[name]; seen {
			continue
		}
		b, err := os.ReadFile(filepath.Join("..", name))
		if err != nil {
			t.Fatalf("%s, run by make test: %v", name, err)
		}
		scripts[name] = string(b)
		queue = append(queue, named.FindAllString(string(b), -1)...)
	}
	return scripts
}

// `make test` changes nothing outside the clone and the temp folder: no
// package, no apt source, nothing built into the machine's PostgreSQL, no
// user. (.ci/run checks the machine itself before and after make test.)
func TestMakeTestLeavesTheMachineAlone(t *testing.T) {
	scripts := testScripts(t)
	if _, ok := scripts["scripts/test.sh"]; !ok {
		t.Fatalf("make test does not run scripts/test.sh: %v", scripts)
	}
	for name, text := range scripts {
		for _, c := range changes(text) {
			t.Errorf("%s %s", name, c)
		}
	}
}

// The check itself finds what scripts/test.sh once did, and lets the
// private apt and an install into a folder pass.
func TestTheCheckFindsWhatChangesTheMachine(t *testing.T) {
	for _, bad := range []string{
		`DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >/dev/null`,
		`$sudo apt-get update -qq >&2`,
		`printf 'Types: deb-src\n' | $sudo tee /etc/apt/sources.list.d/membot-pgvector-src.sources >/dev/null`,
		`apt-get source --download-only -qq pgvector`,
		"make -s install \\\n\tPG_CONFIG=/usr/lib/postgresql/15/bin/pg_config",
		`id postgres >/dev/null 2>&1 || useradd --system postgres`,
		`dpkg -i pgvector.deb`,
		`echo deb-src http://deb.debian.org/debian trixie main > /etc/apt/sources.list`,
	} {
		if len(changes(bad)) == 0 {
			t.Errorf("not found: %s", bad)
		}
	}
	for _, ok := range []string{
		"apt-get -qq -o Dir::Etc::SourceList=\"$tmp/src.list\" -o Dir::Etc::SourceParts=/nonexistent \\\n" +
			"\t-o Dir::State::Lists=\"$tmp/lists\" -o Dir::Cache=\"$tmp/cache\" \"$@\"",
		`make -s -C "$src" install PG_CONFIG="$pg_config" DESTDIR="$build" >/dev/null`,
		`# apt-get install postgresql (a comment)`,
		`log "no PostgreSQL (apt-get install postgresql)"`,
		`find /etc/apt /var/lib/apt/lists -printf '%p %s %T@\n'`,
	} {
		if c := changes(ok); len(c) != 0 {
			t.Errorf("flagged: %v", c)
		}
	}
}
