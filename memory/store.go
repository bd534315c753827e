// Package memory is membot's PostgreSQL repository: users, conversations,
// messages and the durable inbox of Telegram updates. It knows nothing of
// Telegram or OpenAI; callers pass plain values.
package memory

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/membot/membot/internal/redact"
)

// ErrUnavailable wraps every error that means "the database could not be
// reached": callers retry those later instead of giving up on the work.
var ErrUnavailable = errors.New("database unavailable")

// ErrNotFound is returned when a row that was asked for does not exist.
var ErrNotFound = errors.New("not found")

// Store is the repository. Its methods are safe for concurrent use.
type Store struct {
	pool    *pgxpool.Pool
	botID   atomic.Int64 // the bot whose updates are saved (AdoptUpdates)
	vectors atomic.Bool  // message_embeddings exists (EnableVectors)
	secrets atomic.Pointer[redact.Secrets]
}

// Open connects to PostgreSQL and checks the connection with a ping. The
// configure functions (nil ones are skipped) may adjust the pool's settings
// first: membench counts the database traffic with them.
func Open(ctx context.Context, dsn string, maxConns int32, configure ...func(*pgxpool.Config)) (*Store, error) {
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
		return nil, fmt.Errorf("ping database: %w", translate(err))
	}
	return &Store{pool: pool}, nil
}

// NewStore wraps a pool the caller owns.
func NewStore(pool *pgxpool.Pool) *Store { return &Store{pool: pool} }

// HideSecrets makes the store take secrets out of every error, event,
// model call and message it writes from now on: a model server or Telegram
// that echoes the token or a key in an error must not make it part of the
// record. Called once, before the store is used.
func (s *Store) HideSecrets(secrets *redact.Secrets) { s.secrets.Store(secrets) }

// Pool exposes the pool for tests and for the owner lock.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Close closes the pool.
func (s *Store) Close() { s.pool.Close() }

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error { return translate(s.pool.Ping(ctx)) }

// translate turns driver errors into this package's errors, in one place.
func translate(err error) error {
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

// IsUnavailable reports whether err, from this package or straight from the
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

// PrepareAdminViews makes the admin views (conversation_log, daily_usage,
// tool_usage) show local times in zone for sessions opened from now on, by
// setting membot.timezone on the database (that needs its owner), and checks
// that the read-only role exists. It reports whether it changed the zone,
// and what an operator should fix.
func (s *Store) PrepareAdminViews(ctx context.Context, zone string) (changed bool, warnings []string, err error) {
	var current string
	var roleExists bool
	err = s.pool.QueryRow(ctx, adminViewsStateSQL).Scan(&current, &roleExists)
	if err != nil {
		return false, nil, fmt.Errorf("prepare admin views: %w", translate(err))
	}
	if !roleExists {
		warnings = append(warnings, "the read-only role membot_readonly does not exist (the database user may not create roles); docs/ADMIN.md has the SQL to create it")
	}
	if current != zone {
		if _, err := s.pool.Exec(ctx, setAdminViewsZoneSQL, zone); err != nil {
			warnings = append(warnings, fmt.Sprintf("the admin views show %s times, not TIMEZONE's: setting membot.timezone failed: %v", current, err))
		} else {
			changed = true
		}
	}
	return changed, warnings, nil
}

// The statements of this file, whole in sql/store.sql.
var (
	adminViewsStateSQL   = statement("adminViewsState")
	setAdminViewsZoneSQL = statement("setAdminViewsZone")
)
