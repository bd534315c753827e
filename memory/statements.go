package memory

import (
	"embed"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
)

// Every SQL statement of the package is written whole in sql/*.sql, one
// file per table or job (the Go file of the same name runs them), each
// statement after a marker line that names it:
//
//	-- name: addReminder
//	-- what it does and why (comment lines right after the marker)
//	INSERT INTO reminders ...
//
// The text PostgreSQL runs is what follows the marker and its comment
// lines, up to the next marker, trailing blank lines left out: nothing is
// put together or replaced at run time. The Go code names a statement
// once, in a var of the file that runs it (statement("addReminder")); a
// name that is not there stops the program at start, and
// TestStatementsAsGolden shows every statement's text in testdata.

//go:embed sql/*.sql
var sqlFiles embed.FS

// statements are the statements of sql/*.sql by name; requested, the
// names statement was asked for.
var statements, requested = loadStatements(sqlFiles), map[string]bool{}

var nameMarker = regexp.MustCompile(`^-- name: ([A-Za-z][A-Za-z0-9]*)\s*$`)

// loadStatements reads the named statements of every .sql file of fsys.
func loadStatements(fsys fs.FS) map[string]string {
	found := map[string]string{}
	paths, err := fs.Glob(fsys, "sql/*.sql")
	if err != nil {
		panic(err)
	}
	for _, path := range paths {
		raw, err := fs.ReadFile(fsys, path)
		if err != nil {
			panic(err)
		}
		for name, text := range parseStatements(path, string(raw)) {
			if _, twice := found[name]; twice {
				panic(fmt.Sprintf("memory: statement %s is named twice (%s)", name, path))
			}
			found[name] = text
		}
	}
	return found
}

// parseStatements splits one file's text into its named statements.
func parseStatements(path, text string) map[string]string {
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
			panic(fmt.Sprintf("memory: statement %s of %s is empty", name, path))
		}
		if _, twice := found[name]; twice {
			panic(fmt.Sprintf("memory: statement %s is named twice in %s", name, path))
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

// statement is the text of the statement called name in sql/*.sql.
func statement(name string) string {
	text, ok := statements[name]
	if !ok {
		panic("memory: no statement " + name + " in sql/*.sql")
	}
	requested[name] = true
	return text
}
