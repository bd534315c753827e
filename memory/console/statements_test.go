package console

import (
	"testing"

	"github.com/membot/membot/internal/testing/sqlgolden"
)

// TestStatementsAsGolden: each statement's text is in testdata/NAME.sql
// (go test ./memory/console -run TestStatementsAsGolden -update rewrites them).
func TestStatementsAsGolden(t *testing.T) { sqlgolden.Golden(t, statements) }

// TestEveryStatementIsRun: no statement of sql/*.sql lies there unused.
func TestEveryStatementIsRun(t *testing.T) { sqlgolden.AllRun(t, statements) }
