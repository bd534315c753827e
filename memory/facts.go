package memory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/membot/membot/memory/jobs"
	"github.com/membot/membot/memory/pg"
)

// LongTerm keeps what is remembered beyond a conversation: the facts of
// each user, the summaries of each conversation, and the tombstones of
// what was forgotten. It is safe for concurrent use.
type LongTerm struct{ base }

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

// Remember saves a fact about a user (with the remember tool) and returns
// its row. With id 0 it adds a fact (or refreshes the same text saved
// before); otherwise it supersedes the user's current fact id, or fails
// with ErrNotFound.
func (s LongTerm) Remember(ctx context.Context, userID, id int64, content string, sourceMessageID int64) (*Fact, error) {
	return s.remember(ctx, userID, id, content, sourceMessageID, OriginTool)
}

// factParams are the arguments of remember and supersede but the bound
// and the id.
type factParams struct {
	UserID          int64  `db:"telegram_user_id"`
	Content         string `db:"content"`
	SourceMessageID int64  `db:"source_message_id"`
	Origin          string `db:"origin"`
}

// factStatement is the statement that saves f and its arguments: with
// id 0 remember (within MaxFacts), otherwise supersede of fact id.
func factStatement(id int64, f factParams) (string, pg.Args) {
	if id != 0 {
		return supersedeSQL, pg.Named(struct {
			factParams
			ID int64 `db:"id"`
		}{f, id})
	}
	return rememberSQL, pg.Named(struct {
		factParams
		MaxFacts int `db:"max_facts"`
	}{f, MaxFacts})
}

func (s LongTerm) remember(ctx context.Context, userID, id int64, content string, sourceMessageID int64, origin string) (*Fact, error) {
	var rows pgx.Rows
	var err error
	content = cleanText(content)
	sql, args := factStatement(id, factParams{UserID: userID, Content: content, SourceMessageID: sourceMessageID, Origin: origin})
	rows, err = s.pool.Query(ctx, sql, args)
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

// ForgetFact deletes the user's current fact id, with the versions it
// superseded, and returns it (ErrNotFound if the user has no such fact).
func (s LongTerm) ForgetFact(ctx context.Context, userID, id int64) (*Fact, error) {
	return s.forgetOne(ctx, id, userID, 0)
}

// ForgetFactNumber deletes the user's n-th current fact as Facts lists them
// (1 is the newest), with the versions it superseded, and returns it.
func (s LongTerm) ForgetFactNumber(ctx context.Context, userID int64, n int) (*Fact, error) {
	return s.forgetOne(ctx, 0, userID, n-1)
}

// forgetOne forgets the user's current fact id, or (id 0) the one at
// offset in Facts' order (forgetFacts).
func (s LongTerm) forgetOne(ctx context.Context, id, userID int64, offset int) (*Fact, error) {
	gone, err := s.forget(ctx, id, userID, offset, false)
	if err == nil && len(gone) != 1 {
		err = ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("forget fact: %w", err)
	}
	return &gone[0], nil
}

// ForgetAllFacts deletes every fact of the user, with their history, and
// says how many current facts there were.
func (s LongTerm) ForgetAllFacts(ctx context.Context, userID int64) (int64, error) {
	gone, err := s.forget(ctx, 0, userID, 0, true)
	if err != nil {
		return 0, fmt.Errorf("forget all facts: %w", err)
	}
	return int64(len(gone)), nil
}

// forgetFactsParams are the arguments of forgetFacts.
type forgetFactsParams struct {
	ID     int64 `db:"id"`
	UserID int64 `db:"telegram_user_id"`
	Offset int   `db:"offset"`
	All    bool  `db:"all"`
}

// forget runs forgetFacts and buries what it deleted, in one transaction,
// and returns the current facts forgotten.
func (s LongTerm) forget(ctx context.Context, id, userID int64, offset int, all bool) ([]Fact, error) {
	type goneFact struct {
		Fact
		Current bool `db:"current"`
	}
	var current []Fact
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, lockUserBoundsSQL, userID); err != nil { // one at a time with SaveExtracted
			return err
		}
		rows, err := tx.Query(ctx, forgetFactsSQL, pg.Named(forgetFactsParams{ID: id, UserID: userID, Offset: offset, All: all}))
		if err != nil {
			return err
		}
		gone, err := pgx.CollectRows(rows, pgx.RowToStructByName[goneFact])
		if err != nil {
			return err
		}
		texts := make([]string, 0, len(gone))
		for _, g := range gone {
			texts = append(texts, g.Content)
			if g.Current {
				current = append(current, g.Fact)
			}
		}
		return bury(ctx, tx, userID, texts)
	})
	if err != nil {
		return nil, translate(err)
	}
	return current, nil
}

// Facts returns every current fact of the user, newest first.
func (s LongTerm) Facts(ctx context.Context, userID int64) ([]Fact, error) {
	rows, err := s.pool.Query(ctx, factsSQL, userID)
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
// chars characters and of what they forgot (its tombstones), scanned into t; nothing
// when chars is 0 (no facts in the prompt: a group).
func queueFacts(batch *pgx.Batch, userID int64, chars int, t *Turn) {
	if chars <= 0 {
		return
	}
	batch.Queue(factsWithinSQL, userID, chars).Query(func(rows pgx.Rows) error {
		var err error
		t.Facts, err = pgx.CollectRows(rows, pgx.RowToStructByName[Fact])
		return err
	})
	queueTombstones(batch, userID, t)
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
func (s LongTerm) SaveExtracted(ctx context.Context, ex jobs.Exchange, changes []FactChange, call LLMCall) error {
	// Under the user's lock, as forget is: a change that states a fact
	// forgotten since the extraction began is not saved.
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, lockUserBoundsSQL, ex.UserID); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, tombstonesSQL, ex.UserID)
		if err != nil {
			return err
		}
		tombs, err := pgx.CollectRows(rows, pgx.RowToStructByName[Tombstone])
		if err != nil {
			return err
		}
		kept := slices.DeleteFunc(slices.Clone(changes), func(c FactChange) bool { return Stated(tombs, c.Text) })
		return tx.SendBatch(ctx, s.extractedBatch(ex, kept, call)).Close()
	})
	if err != nil {
		return fmt.Errorf("save extracted facts: %w", translate(err))
	}
	return nil
}

// extractedBatch writes the facts read from an exchange, the model call,
// and the job's cursor past the exchange.
func (s LongTerm) extractedBatch(ex jobs.Exchange, changes []FactChange, call LLMCall) *pgx.Batch {
	batch := &pgx.Batch{}
	for _, c := range changes {
		sql, args := factStatement(c.ID, factParams{
			UserID: ex.UserID, Content: cleanText(c.Text), SourceMessageID: ex.UserMessageID, Origin: OriginAuto,
		})
		batch.Queue(sql, args)
	}
	if call.Model != "" {
		s.queueLLMCall(batch, call)
	}
	jobs.QueueCursor(batch, jobs.AfterTurn, ex.AnswerID)
	return batch
}

// The statements of this file, whole in sql/facts.sql.
var (
	factsWithinSQL = statement("factsWithin")
	rememberSQL    = statement("remember")
	supersedeSQL   = statement("supersede")
	forgetFactsSQL = statement("forgetFacts")
	factsSQL       = statement("facts")
)
