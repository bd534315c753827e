// Package sqlgolden holds the checks every package with sql/*.sql files
// runs on its statements (internal/sqlfile): each one's text kept in a
// golden file, testdata/NAME.sql, and each one run by some Go code.
package sqlgolden

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membot/membot/internal/sqlfile"
)

var update = flag.Bool("update", false, "rewrite testdata/*.sql from the statements of sql/*.sql")

// Golden keeps every statement of set in a file of its own,
// testdata/NAME.sql (relative to the package's directory, where its tests
// run), so that a change to one shows in the diff as the text PostgreSQL
// runs. It fails when a statement differs from its file, when one has no
// file, and when a file names no statement (go test ./PKG -run
// TestStatementsAsGolden -update rewrites them).
func Golden(t *testing.T, set *sqlfile.Set) {
	t.Helper()
	names := set.Names()
	if len(names) == 0 {
		t.Fatal("no statements loaded from sql/*.sql")
	}
	if *update {
		old, _ := filepath.Glob("testdata/*.sql")
		for _, f := range old {
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			text, _ := set.Lookup(name)
			if err := os.WriteFile(filepath.Join("testdata", name+".sql"), []byte(text+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, name := range names {
		text, _ := set.Lookup(name)
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
		if _, ok := set.Lookup(strings.TrimSuffix(filepath.Base(f), ".sql")); !ok {
			t.Errorf("%s names no statement of sql/*.sql", f)
		}
	}
}

// AllRun fails when a statement of set is named by no Go code (a var of
// set.Statement(NAME)): none may lie there unused.
func AllRun(t *testing.T, set *sqlfile.Set) {
	t.Helper()
	if unused := set.Unused(); len(unused) > 0 {
		t.Errorf("statements no Go code names: %v", unused)
	}
}
