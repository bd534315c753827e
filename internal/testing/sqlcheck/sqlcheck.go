// Package sqlcheck holds the check every package with sql/*.sql files runs
// on its statements (internal/sqlfile): each one is run by some Go code.
// That each one parses and plans against the migrated schema is checked
// for all packages at once by memory's TestEveryStatementPrepares.
package sqlcheck

import (
	"testing"

	"github.com/membot/membot/internal/sqlfile"
)

// AllRun fails when a statement of set is named by no Go code (a var of
// set.Statement(NAME)): none may lie there unused.
func AllRun(t *testing.T, set *sqlfile.Set) {
	t.Helper()
	if len(set.Names()) == 0 {
		t.Fatal("no statements loaded from sql/*.sql")
	}
	if unused := set.Unused(); len(unused) > 0 {
		t.Errorf("statements no Go code names: %v", unused)
	}
}
