package memory

import (
	"embed"

	"github.com/membot/membot/internal/sqlfile"
)

// Every SQL statement of the package is written whole in sql/*.sql, one
// file per table or job (the Go file of the same name runs them), as
// internal/sqlfile reads them.

//go:embed sql/*.sql
var sqlFiles embed.FS

// statements are the statements of sql/*.sql by name.
var statements = sqlfile.Load(sqlFiles, "memory")

// statement is the text of the statement called name in sql/*.sql.
func statement(name string) string { return statements.Statement(name) }
