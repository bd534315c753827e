package sqlfile

import (
	"testing"
	"testing/fstest"
)

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
	got := Load(fsys, "test").text
	want := map[string]string{"first": "SELECT 1\n-- kept: inside the statement\nFROM t", "second": "UPDATE t SET x = 1"}
	if len(got) != len(want) || got["first"] != want["first"] || got["second"] != want["second"] {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// TestUnusedAreTheStatementsNeverAskedFor: Statement counts a statement as
// run, Lookup does not.
func TestUnusedAreTheStatementsNeverAskedFor(t *testing.T) {
	s := Load(fstest.MapFS{"sql/a.sql": {Data: []byte("-- name: a\nSELECT 1\n-- name: b\nSELECT 2\n-- name: c\nSELECT 3\n")}}, "test")
	s.Statement("a")
	if _, ok := s.Lookup("b"); !ok {
		t.Fatal("Lookup found no statement b")
	}
	if got := s.Unused(); len(got) != 2 || got[0] != "b" || got[1] != "c" {
		t.Fatalf("unused %v, want [b c]", got)
	}
}
