package purge

import (
	"context"
	"embed"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/membot/membot/internal/sqlfile"
	"github.com/membot/membot/memory/pg"
)

// Store is the Queue over memory's pool: the statements of sql/purge.sql.
type Store struct {
	pool *pgxpool.Pool
}

// NewStore is the Queue over pool, memory.Store's (memory.Store.Pool).
func NewStore(pool *pgxpool.Pool) *Store { return &Store{pool: pool} }

// PurgeBatch is how many messages PurgeReset deletes at a time: a short
// transaction even when every row sits on a page of its own.
const PurgeBatch = 5000

// PurgeReset deletes one batch of what /new left behind (see
// memory.Store.Reset) and returns how many rows went: 0 when nothing is
// left to purge.
func (s *Store) PurgeReset(ctx context.Context) (int64, error) {
	var n int64
	if err := s.pool.QueryRow(ctx, purgeSQL, PurgeBatch).Scan(&n); err != nil {
		return 0, fmt.Errorf("purge reset conversations: %w", translate(err))
	}
	return n, nil
}

// PurgeExpired deletes one batch of the operational rows older than before
// (RETENTION_DAYS) and returns how many went: 0 when none is left.
func (s *Store) PurgeExpired(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	if err := s.pool.QueryRow(ctx, expiredSQL, before, PurgeBatch).Scan(&n); err != nil {
		return 0, fmt.Errorf("purge expired rows: %w", translate(err))
	}
	return n, nil
}

// translate is memory's translation of driver errors.
var translate = pg.Translate

//go:embed sql/*.sql
var sqlFiles embed.FS

// statements are the package's statements by name (internal/sqlfile).
var statements = sqlfile.Load(sqlFiles, "memory/purge")

// The statements of this file, whole in sql/purge.sql.
var (
	purgeSQL   = statements.Statement("purge")
	expiredSQL = statements.Statement("expired")
)
