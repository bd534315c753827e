package memory

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

var update = flag.Bool("update", false, "rewrite testdata/*.sql from the statements of sql/*.sql")

// TestStatementsAsGolden keeps every statement the package can run in a
// file of its own, testdata/NAME.sql, so that a change to one shows in the
// diff as the text PostgreSQL runs. It fails when a statement differs from
// its file, when one has no file, and when a file names no statement
// (go test ./memory -run TestStatementsAsGolden -update rewrites them).
func TestStatementsAsGolden(t *testing.T) {
	if len(statements) == 0 {
		t.Fatal("no statements loaded from sql/*.sql")
	}
	if *update {
		old, _ := filepath.Glob("testdata/*.sql")
		for _, f := range old {
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
		}
		for name, text := range statements {
			if err := os.WriteFile(filepath.Join("testdata", name+".sql"), []byte(text+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name, text := range statements {
		golden, err := os.ReadFile(filepath.Join("testdata", name+".sql"))
		if err != nil {
			t.Errorf("statement %s has no golden file (run with -update): %v", name, err)
			continue
		}
		if string(golden) != text+"\n" {
			t.Errorf("statement %s differs from testdata/%s.sql (run with -update and read the diff)", name, name)
		}
	}
	files, err := filepath.Glob("testdata/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if _, ok := statements[strings.TrimSuffix(filepath.Base(f), ".sql")]; !ok {
			t.Errorf("%s names no statement of sql/*.sql", f)
		}
	}
}

// TestEveryStatementIsRun: each statement of sql/*.sql is named by the Go
// code (a var of statement(NAME)), so none lies there unused.
func TestEveryStatementIsRun(t *testing.T) {
	var unused []string
	for name := range statements {
		if !requested[name] {
			unused = append(unused, name)
		}
	}
	slices.Sort(unused)
	if len(unused) > 0 {
		t.Errorf("statements no Go code names: %v", unused)
	}
}

// TestParseStatements: the marker and the comment lines after it are not
// part of the statement; comments inside it are.
func TestParseStatements(t *testing.T) {
	fsys := fstest.MapFS{"sql/a.sql": {Data: []byte(`-- the file's notes
-- name: first
-- what it does
SELECT 1
-- kept: inside the statement
FROM t


-- name: second
UPDATE t SET x = 1
`)}}
	got := loadStatements(fsys)
	want := map[string]string{"first": "SELECT 1\n-- kept: inside the statement\nFROM t", "second": "UPDATE t SET x = 1"}
	if len(got) != len(want) || got["first"] != want["first"] || got["second"] != want["second"] {
		t.Fatalf("got %q, want %q", got, want)
	}
}
