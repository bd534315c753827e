// Package memory is membot's PostgreSQL repository: users, conversations,
// messages, and the durable inbox of Telegram updates through its
// repository (Inbox, package queue). It knows nothing of Telegram or
// OpenAI; callers pass plain values.
package memory

import (
	"context"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/membot/membot/internal/redact"
	"github.com/membot/membot/memory/jobs"
	"github.com/membot/membot/memory/pg"
	"github.com/membot/membot/memory/queue"
)

// ErrUnavailable wraps every error that means "the database could not be
// reached": callers retry those later instead of giving up on the work.
var ErrUnavailable = pg.ErrUnavailable

// ErrNotFound is returned when a row that was asked for does not exist.
var ErrNotFound = pg.ErrNotFound

// Store is the repository: it keeps the turns and the messages itself,
// and hands out the store of each other domain (Access, Approvals,
// Choices, Events, Index, LongTerm, Pictures, Reminders), which share its
// pool and secrets. Its methods are safe for concurrent use.
type Store struct {
	base
	vectors *atomic.Bool // message_embeddings exists (Index.EnableVectors)
	inbox   *queue.Store
	jobs    *jobs.Store
}

// base is what every store of the repository shares: the pool, and the
// secrets taken out of everything written.
type base struct {
	pool    *pgxpool.Pool
	secrets *pg.Secrets
}

// Open connects to PostgreSQL and checks the connection with a ping. The
// configure functions (nil ones are skipped) may adjust the pool's settings
// first: membench counts the database traffic with them.
func Open(ctx context.Context, dsn string, maxConns int32, configure ...func(*pgxpool.Config)) (*Store, error) {
	pool, err := pg.NewPool(ctx, dsn, maxConns, configure...)
	if err != nil {
		return nil, err
	}
	return NewStore(pool), nil
}

// NewStore wraps a pool the caller owns.
func NewStore(pool *pgxpool.Pool) *Store {
	secrets := &pg.Secrets{}
	return &Store{base: base{pool: pool, secrets: secrets}, vectors: new(atomic.Bool), inbox: queue.New(pool, secrets), jobs: jobs.New(pool)}
}

// Access is who uses the bot and who may (access.go, users.go).
func (s *Store) Access() Access { return Access{s.base} }

// Reminders is the reminders and the scheduled tasks (reminders.go,
// tasks.go).
func (s *Store) Reminders() Reminders { return Reminders{s.base, s.inbox} }

// Approvals is the tool calls that wait for a yes, as they are decided
// (approvals.go).
func (s *Store) Approvals() Approvals { return Approvals{s.base} }

// Events is the event log (events.go).
func (s *Store) Events() Events { return Events{s.base} }

// LongTerm is the facts, the summaries and the tombstones (facts.go,
// summaries.go, forgotten.go).
func (s *Store) LongTerm() LongTerm { return LongTerm{s.base} }

// Index is the messages' search, by words and by meaning, and their
// embeddings (search.go, embeddings.go).
func (s *Store) Index() Index { return Index{s.base, s.vectors} }

// Pictures is the pictures drawn, reserved and kept until sent
// (pictures.go).
func (s *Store) Pictures() Pictures { return Pictures{s.base} }

// Choices is each conversation's mode and model, and each chat's voice
// replies (modes.go, models.go, media.go).
func (s *Store) Choices() Choices { return Choices{s.base} }

// Inbox is the durable inbox of Telegram updates (package queue), over
// the same pool and secrets.
func (s *Store) Inbox() *queue.Store { return s.inbox }

// Jobs is the background work's progress (package jobs), over the same
// pool.
func (s *Store) Jobs() *jobs.Store { return s.jobs }

// HideSecrets makes the store take secrets out of every error, event,
// model call and message it writes from now on: a model server or Telegram
// that echoes the token or a key in an error must not make it part of the
// record. Called once, before the store is used.
func (s *Store) HideSecrets(secrets *redact.Secrets) { s.secrets.Hide(secrets) }

// storable is text made storable, with the store's secrets taken out.
func (s base) storable(text string) string { return s.secrets.Storable(text) }

// storableValue is a JSON value made storable, with the store's secrets
// taken out of every string.
func (s base) storableValue(v any) any { return s.secrets.StorableValue(v) }

// What every repository of memory cleans its text and JSON with.
var cleanText, cleanJSON = pg.CleanText, pg.CleanJSON

// Pool exposes the pool for tests and for the owner lock.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Close closes the pool.
func (s *Store) Close() { s.pool.Close() }

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error { return translate(s.pool.Ping(ctx)) }

// translate turns driver errors into this package's errors, in one place
// for every repository of memory.
var translate = pg.Translate

// IsUnavailable reports whether err, from this package or straight from the
// driver, means the database could not be reached.
func IsUnavailable(err error) bool { return pg.IsUnavailable(err) }
