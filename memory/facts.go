package memory

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Fact is one long-term fact about a user (a row of memories).
type Fact struct {
	ID              int64     `db:"id"`
	Content         string    `db:"content"`
	SourceMessageID int64     `db:"source_message_id"`
	CreatedAt       time.Time `db:"created_at"`
	UpdatedAt       time.Time `db:"updated_at"`
}

// ErrTooManyFacts is returned when a user already has MaxFacts facts.
var ErrTooManyFacts = errors.New("too many facts")

// MaxFacts bounds how many facts one user may have.
const MaxFacts = 200

const factColumns = `id, content, coalesce(source_message_id, 0) AS source_message_id, created_at, updated_at`

// factOrder is the order of the system prompt and of /memory: newest first.
const factOrder = `updated_at DESC, id DESC`

// factsWithinSQL selects user $1's newest facts whose texts add up to at
// most $2 characters.
const factsWithinSQL = `SELECT ` + factColumns + ` FROM (
	SELECT *, sum(length(content)) OVER (ORDER BY ` + factOrder + `) AS running
	FROM memories WHERE telegram_user_id = $1) f
WHERE running <= $2 ORDER BY ` + factOrder

// rememberSQL saves fact $2 of user $1. The same text saved again (in any
// case) only refreshes the old row, so it moves to the top.
const rememberSQL = `WITH same AS (
	UPDATE memories SET updated_at = clock_timestamp(), source_message_id = coalesce(NULLIF($3::bigint, 0), source_message_id)
	WHERE telegram_user_id = $1 AND lower(content) = lower($2)
	RETURNING ` + factColumns + `
), added AS (
	INSERT INTO memories (telegram_user_id, content, source_message_id)
	SELECT $1, $2, NULLIF($3::bigint, 0)
	WHERE NOT EXISTS (SELECT 1 FROM same)
	  AND (SELECT count(*) FROM memories WHERE telegram_user_id = $1) < $4
	RETURNING ` + factColumns + `
)
SELECT * FROM same UNION ALL SELECT * FROM added LIMIT 1`

const updateFactSQL = `UPDATE memories SET content = $3, updated_at = clock_timestamp(),
	source_message_id = coalesce(NULLIF($4::bigint, 0), source_message_id)
WHERE id = $1 AND telegram_user_id = $2 RETURNING ` + factColumns

// Remember saves a fact about a user and returns its row. With id 0 it adds
// a fact (or refreshes the same text saved before); otherwise it replaces
// the text of the user's fact id, or fails with ErrNotFound.
func (s *Store) Remember(ctx context.Context, userID, id int64, content string, sourceMessageID int64) (*Fact, error) {
	var rows pgx.Rows
	var err error
	content = cleanText(content)
	if id != 0 {
		rows, err = s.pool.Query(ctx, updateFactSQL, id, userID, content, sourceMessageID)
	} else {
		rows, err = s.pool.Query(ctx, rememberSQL, userID, content, sourceMessageID, MaxFacts)
	}
	if err != nil {
		return nil, fmt.Errorf("remember: %w", translate(err))
	}
	f, err := pgx.CollectExactlyOneRow(rows, pgx.RowToAddrOfStructByName[Fact])
	switch {
	case errors.Is(err, pgx.ErrNoRows) && id == 0:
		return nil, fmt.Errorf("remember: %w (at most %d)", ErrTooManyFacts, MaxFacts)
	case err != nil:
		return nil, fmt.Errorf("remember: %w", translate(err))
	}
	return f, nil
}

// ForgetFact deletes the user's fact id and returns it (ErrNotFound if the
// user has no such fact).
func (s *Store) ForgetFact(ctx context.Context, userID, id int64) (*Fact, error) {
	return s.deleteFact(ctx, `DELETE FROM memories WHERE id = $1 AND telegram_user_id = $2 RETURNING `+factColumns, id, userID)
}

// ForgetFactNumber deletes the user's n-th fact as Facts lists them (1 is
// the newest) and returns it.
func (s *Store) ForgetFactNumber(ctx context.Context, userID int64, n int) (*Fact, error) {
	return s.deleteFact(ctx, `DELETE FROM memories WHERE id = (
		SELECT id FROM memories WHERE telegram_user_id = $1 ORDER BY `+factOrder+` OFFSET $2 LIMIT 1)
	RETURNING `+factColumns, userID, n-1)
}

func (s *Store) deleteFact(ctx context.Context, query string, args ...any) (*Fact, error) {
	rows, err := s.pool.Query(ctx, query, args...)
	if err == nil {
		var f *Fact
		if f, err = pgx.CollectExactlyOneRow(rows, pgx.RowToAddrOfStructByName[Fact]); err == nil {
			return f, nil
		}
	}
	return nil, fmt.Errorf("forget fact: %w", translate(err))
}

// ForgetAllFacts deletes every fact of the user and says how many there were.
func (s *Store) ForgetAllFacts(ctx context.Context, userID int64) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM memories WHERE telegram_user_id = $1`, userID)
	if err != nil {
		return 0, fmt.Errorf("forget all facts: %w", translate(err))
	}
	return tag.RowsAffected(), nil
}

// Facts returns every fact of the user, newest first.
func (s *Store) Facts(ctx context.Context, userID int64) ([]Fact, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+factColumns+` FROM memories WHERE telegram_user_id = $1 ORDER BY `+factOrder, userID)
	if err != nil {
		return nil, fmt.Errorf("facts: %w", translate(err))
	}
	facts, err := pgx.CollectRows(rows, pgx.RowToStructByName[Fact])
	if err != nil {
		return nil, fmt.Errorf("facts: %w", translate(err))
	}
	return facts, nil
}

// queueFacts adds to batch the query of the user's newest facts within
// chars characters, scanned into *dst.
func queueFacts(batch *pgx.Batch, userID int64, chars int, dst *[]Fact) {
	batch.Queue(factsWithinSQL, userID, chars).Query(func(rows pgx.Rows) error {
		var err error
		*dst, err = pgx.CollectRows(rows, pgx.RowToStructByName[Fact])
		return err
	})
}
