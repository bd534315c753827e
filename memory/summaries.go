package memory

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/membot/membot/memory/pg"
)

// Summaries of what left the model's window (conversation_summaries): the
// after-turn job folds the rows that fell out of the window, a chunk at a
// time, into the conversation's running summary; the newest one goes into
// the context after the system prompt.

// SummaryRow is a row to be summarised.
type SummaryRow struct {
	ID        int64     `db:"id"`
	Role      Role      `db:"role"`
	Text      string    `db:"text"`
	WrittenAt time.Time `db:"written_at"` // Message.WrittenAt
	// Where a user row came from, as its metadata says: the kind of its
	// first file, whether Telegram marked it forwarded, whether it is a
	// scheduled task's run, the inline bot it was sent via, its author.
	Media     string `db:"media"`
	Forwarded bool   `db:"forwarded"`
	Scheduled bool   `db:"scheduled"`
	ViaBot    string `db:"via_bot"` // the inline bot it was sent via; "" for none
	AuthorID  int64  `db:"author_id"`
}

// Summary is a stored summary.
type Summary struct {
	ConversationID string
	ChatID         int64
	FromMessageID  int64
	ToMessageID    int64
	// Rows is how many rows it summarises: those of FromMessageID..
	// ToMessageID that Unsummarised gave. Fewer of them left when it is
	// saved means a forget marked some meanwhile: it is not kept. Not
	// stored: Summaries gives 0.
	Rows    int `db:"-"`
	Content string
	Model   string
}

// maxSummarisedChars bounds the text of one row given to the summariser.
const maxSummarisedChars = 1500

// Unsummarised returns the conversation's newest summary ("" when none)
// and the newest limit rows (at most) that left its window of window rows
// since, oldest first.
func (s LongTerm) Unsummarised(ctx context.Context, conversationID string, window, limit int) (string, []SummaryRow, error) {
	var prev string
	var rows []SummaryRow
	batch := &pgx.Batch{}
	batch.Queue(newestSummarySQL, conversationID).Query(func(r pgx.Rows) error {
		for r.Next() {
			var to int64
			if err := r.Scan(&prev, &to); err != nil {
				return err
			}
		}
		return r.Err()
	})
	args := pg.Named(unsummarisedParams{ConversationID: conversationID, Window: window, MaxRows: limit, MaxChars: maxSummarisedChars})
	batch.Queue(unsummarisedSQL, args).Query(func(r pgx.Rows) error {
		var err error
		rows, err = pgx.CollectRows(r, pgx.RowToStructByName[SummaryRow])
		return err
	})
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return "", nil, fmt.Errorf("unsummarised rows: %w", translate(err))
	}
	return prev, rows, nil
}

// unsummarisedParams are the arguments of unsummarised.
type unsummarisedParams struct {
	ConversationID string `db:"conversation_id"`
	Window         int    `db:"history_limit"`
	MaxRows        int    `db:"max_rows"`
	MaxChars       int    `db:"max_chars"`
}

// saveSummaryParams are the arguments of saveSummary.
type saveSummaryParams struct {
	ConversationID string `db:"conversation_id"`
	ChatID         int64  `db:"chat_id"`
	FromMessageID  int64  `db:"from_message_id"`
	ToMessageID    int64  `db:"to_message_id"`
	Rows           int    `db:"rows"`
	Content        string `db:"content"`
	Model          string `db:"model"`
}

// SaveSummary stores a summary (none when its Content is empty) and the
// model call that wrote it. A conversation deleted meanwhile (/new) keeps
// no summary, nor does one whose rows a forget marked while it was
// written (Rows): under the chat's user lock (the one forget takes), so a
// forget either sees the summary and drops it or has marked the rows before.
func (s LongTerm) SaveSummary(ctx context.Context, sum Summary, call LLMCall) error {
	// One batch is one implicit transaction: the lock, taken by a
	// statement of its own, holds until the batch ends.
	batch := &pgx.Batch{}
	if sum.Content != "" { // a failed call is recorded all the same
		batch.Queue(lockUserBoundsSQL, sum.ChatID) // a private chat's id is its user's; facts come from those only
		batch.Queue(saveSummarySQL, pg.Named(saveSummaryParams{
			ConversationID: sum.ConversationID, ChatID: sum.ChatID, FromMessageID: sum.FromMessageID,
			ToMessageID: sum.ToMessageID, Rows: sum.Rows, Content: cleanText(sum.Content), Model: sum.Model,
		}))
	}
	s.queueLLMCall(batch, call)
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return fmt.Errorf("save summary: %w", translate(err))
	}
	return nil
}

// Summaries returns the conversation's summaries, oldest first.
func (s LongTerm) Summaries(ctx context.Context, conversationID string) ([]Summary, error) {
	rows, err := s.pool.Query(ctx, summariesSQL, conversationID)
	if err != nil {
		return nil, fmt.Errorf("summaries: %w", translate(err))
	}
	found, err := pgx.CollectRows(rows, pgx.RowToStructByPos[Summary])
	if err != nil {
		return nil, fmt.Errorf("summaries: %w", translate(err))
	}
	return found, nil
}

// queueSummary adds to batch sql, the query of a conversation's newest
// summary, scanned into *dst.
func queueSummary(batch *pgx.Batch, sql string, dst *string, args ...any) {
	batch.Queue(sql, args...).QueryRow(func(row pgx.Row) error {
		return row.Scan(dst)
	})
}

// The statements of this file, whole in sql/summaries.sql.
var (
	newestSummarySQL = statement("newestSummary")
	unsummarisedSQL  = statement("unsummarised")
	saveSummarySQL   = statement("saveSummary")
	summariesSQL     = statement("summaries")
)
