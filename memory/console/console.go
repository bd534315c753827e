// Package console is what the web interface reads and changes, a
// repository over memory's pool: the operator's sign-in links and
// sessions, and the pages' views of users, conversations, memory, usage
// and what the bot waits on. Every statement is written whole in
// sql/*.sql. What the bot itself does to memory (forgetting a fact, say)
// the web interface does through memory.Store, so that both do it alike.
package console

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

var translate = pg.Translate

//go:embed sql/*.sql
var sqlFiles embed.FS

var statements = sqlfile.Load(sqlFiles, "memory/console")

func statement(name string) string { return statements.Statement(name) }
