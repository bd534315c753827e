// Package userdata is what is read of users and their conversations
// whole, a repository over memory's pool: a user's usage (what the limits
// count) and the bot's totals, the chat's transcript and dialogue, the
// conversation log of a user or a chat, and every row of a user exported
// or deleted (Export, Forget). Every statement is written whole in
// sql/*.sql.
package userdata

import (
	"embed"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/membot/membot/internal/sqlfile"
	"github.com/membot/membot/memory/pg"
)

// Store is the repository. Its methods are safe for concurrent use.
type Store struct {
	pool *pgxpool.Pool
}

// New is the repository over pool, memory.Store's (memory.Store.Pool).
func New(pool *pgxpool.Pool) *Store { return &Store{pool: pool} }

// translate is memory's translation of driver errors.
var translate = pg.Translate

//go:embed sql/*.sql
var sqlFiles embed.FS

// statements are the package's statements by name (internal/sqlfile).
var statements = sqlfile.Load(sqlFiles, "memory/userdata")

// statement is the text of the statement called name in sql/*.sql.
func statement(name string) string { return statements.Statement(name) }
