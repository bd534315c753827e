// Package sqlfile reads the SQL statements a package writes whole in its
// sql/*.sql files, one file per table or job (the Go file of the same name
// runs them), each statement after a marker line that names it:
//
//	-- name: addReminder
//	-- what it does and why (comment lines right after the marker)
//	INSERT INTO reminders ...
//
// The text PostgreSQL runs is what follows the marker and its comment
// lines, up to the next marker, trailing blank lines left out: nothing is
// put together or replaced at run time. The Go code names a statement
// once, in a var of the file that runs it (set.Statement("addReminder")); a
// name that is not there stops the program at start, and memory's
// TestEveryStatementPrepares prepares every statement against a migrated
// database.
package sqlfile

import (
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"
)

// Set is the named statements of one package's sql/*.sql files.
type Set struct {
	owner     string            // the package, for the messages of a panic
	text      map[string]string // the statements by name
	requested map[string]bool   // the names Statement was asked for
}

var nameMarker = regexp.MustCompile(`^-- name: ([A-Za-z][A-Za-z0-9]*)\s*$`)

// Load reads the named statements of every sql/*.sql file of fsys (a
// package's embedded files); owner names the package in what it panics
// with. A statement named twice, or empty, stops the program at start.
func Load(fsys fs.FS, owner string) *Set {
	s := &Set{owner: owner, text: map[string]string{}, requested: map[string]bool{}}
	paths, err := fs.Glob(fsys, "sql/*.sql")
	if err != nil {
		panic(err)
	}
	for _, path := range paths {
		raw, err := fs.ReadFile(fsys, path)
		if err != nil {
			panic(err)
		}
		for name, text := range s.parse(path, string(raw)) {
			if _, twice := s.text[name]; twice {
				panic(fmt.Sprintf("%s: statement %s is named twice (%s)", owner, name, path))
			}
			s.text[name] = text
		}
	}
	return s
}

// parse splits one file's text into its named statements.
func (s *Set) parse(path, text string) map[string]string {
	found := map[string]string{}
	name := ""
	var body []string
	flush := func() {
		if name == "" {
			return
		}
		for len(body) > 0 && (strings.HasPrefix(body[0], "--") || strings.TrimSpace(body[0]) == "") {
			body = body[1:] // the statement's comment
		}
		stmt := strings.TrimRight(strings.Join(body, "\n"), " \t\n")
		if stmt == "" {
			panic(fmt.Sprintf("%s: statement %s of %s is empty", s.owner, name, path))
		}
		if _, twice := found[name]; twice {
			panic(fmt.Sprintf("%s: statement %s is named twice in %s", s.owner, name, path))
		}
		found[name] = stmt
	}
	for _, line := range strings.Split(text, "\n") {
		if m := nameMarker.FindStringSubmatch(line); m != nil {
			flush()
			name, body = m[1], nil
			continue
		}
		body = append(body, line)
	}
	flush()
	return found
}

// Statement is the text of the statement called name, which the Go code
// runs: it panics when there is none. Called from the package's vars, as
// the program starts (not safe for concurrent use).
func (s *Set) Statement(name string) string {
	text, ok := s.text[name]
	if !ok {
		panic(s.owner + ": no statement " + name + " in sql/*.sql")
	}
	s.requested[name] = true
	return text
}

// Lookup is the text of the statement called name, for tests that read
// it (a plan test, say) without counting it as run.
func (s *Set) Lookup(name string) (string, bool) {
	text, ok := s.text[name]
	return text, ok
}

// Names are the names of every statement, sorted.
func (s *Set) Names() []string {
	names := make([]string, 0, len(s.text))
	for name := range s.text {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Unused are the names of the statements Statement was never asked for,
// sorted: statements lying in sql/*.sql that no Go code runs.
func (s *Set) Unused() []string {
	var unused []string
	for _, name := range s.Names() {
		if !s.requested[name] {
			unused = append(unused, name)
		}
	}
	return unused
}
