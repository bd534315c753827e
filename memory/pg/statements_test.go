package pg

import (
	"testing"

	"github.com/membot/membot/internal/testing/sqlcheck"
)

// TestEveryStatementIsRun: no statement of sql/*.sql lies there unused.
func TestEveryStatementIsRun(t *testing.T) { sqlcheck.AllRun(t, statements) }
