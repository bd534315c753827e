// Package jobs is the background work's progress, a repository over
// memory's pool (memory.Store.Jobs hands it out): each job's cursor and
// lease in memory_jobs, and what the jobs read: the rows to embed and the
// answered turns. What they write is memory's, with the cursor moved in
// the same batch (QueueCursor). Every statement is written whole in
// sql/jobs.sql.
package jobs

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/membot/membot/internal/sqlfile"
	"github.com/membot/membot/memory/pg"
)

// The background work after turns: message embeddings, facts
// extracted from exchanges, summaries of what left the window. Each job has
// a cursor row in memory_jobs (the id of the last message it has done) and
// a lease, so its progress survives restarts and replicas take turns.

// Jobs of memory_jobs.
const (
	Embeddings = "embeddings"
	AfterTurn  = "after_turn"
)

// Store is the jobs' repository. Its methods are safe for concurrent use.
type Store struct {
	pool *pgxpool.Pool
}

// New is the repository over pool.
func New(pool *pgxpool.Pool) *Store { return &Store{pool: pool} }

// LeaseJob takes job for d and returns its cursor; ok is false while
// another process holds it.
func (s *Store) LeaseJob(ctx context.Context, job string, d time.Duration) (cursor int64, ok bool, err error) {
	err = s.pool.QueryRow(ctx, leaseJobSQL,
		job, d).Scan(&cursor)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("lease job %s: %w", job, translate(err))
	}
	return cursor, true, nil
}

// ReleaseJob gives job back, its cursor moved to at least cursor.
func (s *Store) ReleaseJob(ctx context.Context, job string, cursor int64) error {
	_, err := s.pool.Exec(ctx, releaseJobSQL, job, cursor)
	if err != nil {
		return fmt.Errorf("release job %s: %w", job, translate(err))
	}
	return nil
}

// QueueCursor adds to batch moving job's cursor to at least cursor: the
// job's results and its progress are written in one transaction.
func QueueCursor(batch *pgx.Batch, job string, cursor int64) {
	batch.Queue(advanceJobCursorSQL, job, cursor)
}

// TextRow is the text of a user or assistant row, for the embeddings job.
type TextRow struct {
	ID             int64  `db:"id"`
	ConversationID string `db:"conversation_id"`
	Text           string `db:"text"`
}

// maxEmbeddedChars bounds the text of one row sent to the embeddings model.
const maxEmbeddedChars = 4000

// RowsToEmbed returns up to limit user and assistant rows after row
// cursor, oldest first, settled for settle; their texts are bounded.
func (s *Store) RowsToEmbed(ctx context.Context, cursor int64, limit int, settle time.Duration) ([]TextRow, error) {
	rows, err := s.pool.Query(ctx, rowsToEmbedSQL, pg.Named(readParams{
		AfterID: cursor, MaxRows: limit, Settle: settle, MaxChars: maxEmbeddedChars,
	}))
	if err != nil {
		return nil, fmt.Errorf("rows to embed: %w", translate(err))
	}
	found, err := pgx.CollectRows(rows, pgx.RowToStructByName[TextRow])
	if err != nil {
		return nil, fmt.Errorf("rows to embed: %w", translate(err))
	}
	return found, nil
}

// Exchange is one answered turn, for the after-turn job: the assistant's
// final answer and the user row it answered.
type Exchange struct {
	AnswerID       int64     `db:"answer_id"`
	ConversationID string    `db:"conversation_id"`
	ChatID         int64     `db:"chat_id"`
	UserID         int64     `db:"user_id"` // the user row's author
	UserMessageID  int64     `db:"user_message_id"`
	UserText       string    `db:"user_text"`
	AnswerText     string    `db:"answer_text"`
	At             time.Time `db:"at"` // when the user row was written (Message.WrittenAt); the answer's time without one
	// Where the user row came from, as its metadata says: the kind of its
	// first file ("" for none), whether Telegram marked it forwarded,
	// whether it is a scheduled task's run, the inline bot it was sent
	// via; and the tools that ran in the turn.
	UserMedia     string   `db:"user_media"`
	UserForwarded bool     `db:"user_forwarded"`
	UserScheduled bool     `db:"user_scheduled"`
	UserViaBot    string   `db:"user_via_bot"` // the inline bot it was sent via; "" for none
	Tools         []string `db:"tools"`
}

// maxExchangeChars bounds each side of an exchange given to the model.
const maxExchangeChars = 4000

// AnsweredTurns returns up to limit final answers after row cursor, oldest
// first, settled for settle, each with the user row before it.
func (s *Store) AnsweredTurns(ctx context.Context, cursor int64, limit int, settle time.Duration) ([]Exchange, error) {
	rows, err := s.pool.Query(ctx, answeredTurnsSQL, pg.Named(readParams{
		AfterID: cursor, MaxRows: limit, Settle: settle, MaxChars: maxExchangeChars,
	}))
	if err != nil {
		return nil, fmt.Errorf("answered turns: %w", translate(err))
	}
	found, err := pgx.CollectRows(rows, pgx.RowToStructByName[Exchange])
	if err != nil {
		return nil, fmt.Errorf("answered turns: %w", translate(err))
	}
	return found, nil
}

// NewestMessageID is the id of the newest message (0 when there is none).
func (s *Store) NewestMessageID(ctx context.Context) (int64, error) {
	var id int64
	if err := s.pool.QueryRow(ctx, newestMessageIDSQL).Scan(&id); err != nil {
		return 0, fmt.Errorf("newest message: %w", translate(err))
	}
	return id, nil
}

// translate is memory's translation of driver errors.
var translate = pg.Translate

//go:embed sql/*.sql
var sqlFiles embed.FS

// statements are the package's statements by name (internal/sqlfile).
var statements = sqlfile.Load(sqlFiles, "memory/jobs")

// readParams are the arguments of rowsToEmbed and answeredTurns: the rows
// after the job's cursor that settled, and the bounds of what is read.
type readParams struct {
	AfterID  int64         `db:"after_id"`
	MaxRows  int           `db:"max_rows"`
	Settle   time.Duration `db:"settle"`
	MaxChars int           `db:"max_chars"`
}

// The statements of this package, whole in sql/jobs.sql.
var (
	leaseJobSQL         = statements.Statement("leaseJob")
	releaseJobSQL       = statements.Statement("releaseJob")
	advanceJobCursorSQL = statements.Statement("advanceJobCursor")
	rowsToEmbedSQL      = statements.Statement("rowsToEmbed")
	answeredTurnsSQL    = statements.Statement("answeredTurns")
	newestMessageIDSQL  = statements.Statement("newestMessageID")
)
