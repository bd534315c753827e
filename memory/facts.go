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
	Origin          string    `db:"origin"` // "tool" (the remember tool) or "auto" (extracted after a turn)
}

// Origins of facts (memories.origin).
const (
	OriginTool = "tool"
	OriginAuto = "auto"
)

// ErrTooManyFacts is returned when a user already has MaxFacts facts.
var ErrTooManyFacts = errors.New("too many facts")

// MaxFacts bounds how many facts one user may have.
const MaxFacts = 200

const factColumns = `id, content, coalesce(source_message_id, 0) AS source_message_id, created_at, updated_at, origin`

// current keeps the facts still true: a superseded one points at its successor.
const current = `superseded_by IS NULL`

// factOrder is the order of the system prompt and of /memory: newest first.
const factOrder = `updated_at DESC, id DESC`

// factsWithinSQL selects user $1's newest facts whose texts add up to at
// most $2 characters.
const factsWithinSQL = `SELECT ` + factColumns + ` FROM (
	SELECT *, sum(length(content)) OVER (ORDER BY ` + factOrder + `) AS running
	FROM memories WHERE telegram_user_id = $1 AND ` + current + `) f
WHERE running <= $2 ORDER BY ` + factOrder

// rememberSQL saves fact $2 of user $1 (origin $5). The same text saved
// again (in any case) only refreshes the current row, so it moves to the top;
// its source stays the message that first said it, so taking back the turn
// that only said it again (/undo) leaves it.
const rememberSQL = `WITH same AS (
	UPDATE memories SET updated_at = clock_timestamp(), source_message_id = coalesce(source_message_id, NULLIF($3::bigint, 0))
	WHERE telegram_user_id = $1 AND lower(content) = lower($2) AND ` + current + `
	RETURNING ` + factColumns + `
), added AS (
	INSERT INTO memories (telegram_user_id, content, source_message_id, origin)
	SELECT $1, $2, NULLIF($3::bigint, 0), $5
	WHERE NOT EXISTS (SELECT 1 FROM same)
	  AND (SELECT count(*) FROM memories WHERE telegram_user_id = $1 AND ` + current + `) < $4
	RETURNING ` + factColumns + `
)
SELECT * FROM same UNION ALL SELECT * FROM added LIMIT 1`

// supersedeSQL replaces the current fact $1 of user $2 by a new row with
// text $3 (origin $5): the old row stays, pointing at the new one, with the
// time it stopped being true. A fact that did not change is only refreshed.
const supersedeSQL = `WITH old AS (
	SELECT id, lower(content) = lower($3) AS same FROM memories WHERE id = $1 AND telegram_user_id = $2 AND ` + current + ` FOR UPDATE
), refreshed AS (
	UPDATE memories m SET updated_at = clock_timestamp() FROM old WHERE m.id = old.id AND old.same
	RETURNING m.id, m.content, coalesce(m.source_message_id, 0) AS source_message_id, m.created_at, m.updated_at, m.origin
), added AS (
	INSERT INTO memories (telegram_user_id, content, source_message_id, origin)
	SELECT $2, $3, NULLIF($4::bigint, 0), $5 FROM old WHERE NOT old.same
	RETURNING ` + factColumns + `
), marked AS (
	UPDATE memories m SET superseded_by = added.id, valid_until = clock_timestamp() FROM added WHERE m.id = $1
)
SELECT * FROM refreshed UNION ALL SELECT * FROM added`

// Remember saves a fact about a user (with the remember tool) and returns
// its row. With id 0 it adds a fact (or refreshes the same text saved
// before); otherwise it supersedes the user's current fact id, or fails
// with ErrNotFound.
func (s *Store) Remember(ctx context.Context, userID, id int64, content string, sourceMessageID int64) (*Fact, error) {
	return s.remember(ctx, userID, id, content, sourceMessageID, OriginTool)
}

func (s *Store) remember(ctx context.Context, userID, id int64, content string, sourceMessageID int64, origin string) (*Fact, error) {
	var rows pgx.Rows
	var err error
	content = cleanText(content)
	if id != 0 {
		rows, err = s.pool.Query(ctx, supersedeSQL, id, userID, content, sourceMessageID, origin)
	} else {
		rows, err = s.pool.Query(ctx, rememberSQL, userID, content, sourceMessageID, MaxFacts, origin)
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

// forgetChainSQL deletes the current fact chosen by the query it is given
// (as "head") together with the older versions it superseded: a fact the
// user takes back goes with its history. It returns the current row.
func forgetChainSQL(head string) string {
	return `WITH RECURSIVE chain AS (
	` + head + `
	UNION ALL SELECT m.id FROM memories m JOIN chain c ON m.superseded_by = c.id
), gone AS (
	DELETE FROM memories WHERE id IN (SELECT id FROM chain) RETURNING *
)
SELECT ` + factColumns + ` FROM gone WHERE ` + current
}

// ForgetFact deletes the user's current fact id, with the versions it
// superseded, and returns it (ErrNotFound if the user has no such fact).
func (s *Store) ForgetFact(ctx context.Context, userID, id int64) (*Fact, error) {
	return s.deleteFact(ctx, forgetChainSQL(`SELECT id FROM memories WHERE id = $1 AND telegram_user_id = $2 AND `+current), id, userID)
}

// ForgetFactNumber deletes the user's n-th current fact as Facts lists them
// (1 is the newest), with the versions it superseded, and returns it.
func (s *Store) ForgetFactNumber(ctx context.Context, userID int64, n int) (*Fact, error) {
	return s.deleteFact(ctx, forgetChainSQL(`(SELECT id FROM memories WHERE telegram_user_id = $1 AND `+current+`
		ORDER BY `+factOrder+` OFFSET $2 LIMIT 1)`), userID, n-1)
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

// ForgetAllFacts deletes every fact of the user, with their history, and
// says how many current facts there were.
func (s *Store) ForgetAllFacts(ctx context.Context, userID int64) (int64, error) {
	var n int64
	err := s.pool.QueryRow(ctx, `WITH gone AS (DELETE FROM memories WHERE telegram_user_id = $1 RETURNING superseded_by)
		SELECT count(*) FROM gone WHERE `+current, userID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("forget all facts: %w", translate(err))
	}
	return n, nil
}

// Facts returns every current fact of the user, newest first.
func (s *Store) Facts(ctx context.Context, userID int64) ([]Fact, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+factColumns+` FROM memories WHERE telegram_user_id = $1 AND `+current+` ORDER BY `+factOrder, userID)
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

// FactChange is one change the background extraction makes to a user's
// facts: a new fact (ID 0), or a new text for the current fact ID, which
// supersedes it.
type FactChange struct {
	ID   int64
	Text string
}

// SaveExtracted stores what the extraction made of exchange ex: the fact
// changes (their source is ex's user row), the model call, and the
// after-turn job's cursor past ex, all or nothing in one round trip, so an
// exchange is read once: a fact the user deletes is not extracted again
// from the same messages. Past MaxFacts, new facts are dropped.
func (s *Store) SaveExtracted(ctx context.Context, ex Exchange, changes []FactChange, call LLMCall) error {
	batch := &pgx.Batch{}
	for _, c := range changes {
		text := cleanText(c.Text)
		if c.ID != 0 {
			batch.Queue(supersedeSQL, c.ID, ex.UserID, text, ex.UserMessageID, OriginAuto)
		} else {
			batch.Queue(rememberSQL, ex.UserID, text, ex.UserMessageID, MaxFacts, OriginAuto)
		}
	}
	if call.Model != "" {
		queueLLMCall(batch, call)
	}
	queueCursor(batch, JobAfterTurn, ex.AnswerID)
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return fmt.Errorf("save extracted facts: %w", translate(err))
	}
	return nil
}
