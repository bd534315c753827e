// Package pg is what memory's repositories share: the pool's connections
// (NewPool), the translation of the driver's errors into ErrUnavailable and
// ErrNotFound (Translate), text and JSON made storable with the secrets
// taken out (Secrets), a statement's named arguments bound from a params
// struct (Named), and the settings a batch begins with (sql/session.sql).
package pg

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/membot/membot/internal/sqlfile"
)

// ErrUnavailable wraps every error that means "the database could not be
// reached": callers retry those later instead of giving up on the work.
var ErrUnavailable = errors.New("database unavailable")

// ErrNotFound is returned when a row that was asked for does not exist.
var ErrNotFound = errors.New("not found")

// NewPool connects to PostgreSQL and checks the connection with a ping. The
// configure functions (nil ones are skipped) may adjust the pool's settings
// first: membench counts the database traffic with them.
func NewPool(ctx context.Context, dsn string, maxConns int32, configure ...func(*pgxpool.Config)) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("parse database url: %w", err)
	}
	if maxConns > 0 {
		cfg.MaxConns = maxConns
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		// Without it a dial to a host that drops packets hangs for minutes.
		cfg.ConnConfig.ConnectTimeout = 10 * time.Second
	}
	cfg.ConnConfig.DialFunc = dialer().DialContext
	if _, set := cfg.ConnConfig.RuntimeParams["jit"]; !set {
		// The bot's statements are short; PostgreSQL's JIT compiled the
		// recall statement, whose cost the planner overestimates, for 50 ms
		// of a 5 ms search. Sent with the connection's startup, so it costs
		// no round trip; a jit parameter in DATABASE_URL wins.
		cfg.ConnConfig.RuntimeParams["jit"] = "off"
	}
	for _, fn := range configure {
		if fn != nil {
			fn(cfg)
		}
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("create pool: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("ping database: %w", Translate(err))
	}
	return pool, nil
}

// Translate turns driver errors into this package's errors, in one place.
func Translate(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	if isUnavailable(err) {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return err
}

// IsUnavailable reports whether err, translated or straight from the
// driver, means the database could not be reached.
func IsUnavailable(err error) bool { return errors.Is(err, ErrUnavailable) || isUnavailable(err) }

// isUnavailable reports whether err means the server could not be reached or
// is going away, as opposed to a statement that failed on its own merits.
func isUnavailable(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code[:2] {
		case "08", "57", "53": // connection exception, operator intervention (shutdown), insufficient resources
			return true
		}
		return false
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	// Anything else from the driver without a server error code is a
	// transport failure: refused, reset, closed, timed out dialling.
	var connectErr *pgconn.ConnectError
	return errors.As(err, &connectErr) || pgconn.SafeToRetry(err) || pgconn.Timeout(err) || isNetErr(err)
}

//go:embed sql/*.sql
var sqlFiles embed.FS

// statements are the package's statements (internal/sqlfile).
var statements = sqlfile.Load(sqlFiles, "memory/pg")

// The statements of sql/session.sql, which batches begin with.
var (
	AsyncCommitSQL  = statements.Statement("asyncCommit")
	GenericPlansSQL = statements.Statement("genericPlans")
)
