// Package queue is the durable inbox of Telegram updates, a repository
// over memory's pool: updates saved as they arrive, each chat's claimed by
// one live process at a time (the owner lock proves it alive), completed
// with where their answer was delivered; the requests to stop an answer,
// and an album's later photos, queued behind it. Every statement is
// written whole in sql/*.sql.
package queue

import (
	"context"
	"embed"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/membot/membot/internal/sqlfile"
	"github.com/membot/membot/memory/pg"
)

// Store is the inbox's repository. Its methods are safe for concurrent use.
type Store struct {
	pool    *pgxpool.Pool
	secrets *pg.Secrets  // taken out of the errors it stores
	botID   atomic.Int64 // the bot whose updates are saved (AdoptUpdates)
}

// New is the inbox over pool, taking secrets (nil: none) out of the errors
// it stores; memory.Store.Updates hands out the one over its own pool.
func New(pool *pgxpool.Pool, secrets *pg.Secrets) *Store {
	if secrets == nil {
		secrets = &pg.Secrets{}
	}
	return &Store{pool: pool, secrets: secrets}
}

// Pool exposes the pool for tests and for the owner lock.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error { return translate(s.pool.Ping(ctx)) }

// translate is memory's translation of driver errors.
var translate = pg.Translate

//go:embed sql/*.sql
var sqlFiles embed.FS

// Statements are the package's statements by name (internal/sqlfile):
// memory's plan tests read the claims and saves of a turn's path.
var Statements = sqlfile.Load(sqlFiles, "memory/queue")

// statement is the text of the statement called name in sql/*.sql.
func statement(name string) string { return Statements.Statement(name) }
