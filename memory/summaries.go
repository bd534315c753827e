package memory

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
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
	CreatedAt time.Time `db:"created_at"`
}

// Summary is a stored summary.
type Summary struct {
	ConversationID string
	ChatID         int64
	FromMessageID  int64
	ToMessageID    int64
	Content        string
	Model          string
}

// maxSummarisedChars bounds the text of one row given to the summariser.
const maxSummarisedChars = 1500

// newestSummarySQL is the newest summary of conversation $1.
const newestSummarySQL = `SELECT content, to_message_id FROM conversation_summaries
	WHERE conversation_id = $1 ORDER BY to_message_id DESC LIMIT 1`

// unsummarisedSQL is the newest $3 user and assistant rows of
// conversation $1 that are older than its newest $2 rows (the window) and
// newer than its newest summary, oldest first. The newest: a conversation
// older than the summaries (a bot upgraded with long histories) is
// summarised from where it stands, not from its first row; afterwards
// rows leave the window a turn at a time, and each chunk takes them all.
const unsummarisedSQL = `SELECT * FROM (
	SELECT m.id, m.role, left(membot_plain_text(m.content), $4) AS text, m.created_at FROM messages m
	WHERE m.conversation_id = $1 AND m.role IN ('user', 'assistant') AND m.content <> ''
	  AND m.id < (SELECT coalesce(min(id), 0) FROM (SELECT id FROM messages WHERE conversation_id = $1 ORDER BY id DESC LIMIT $2) w)
	  AND m.id > coalesce((SELECT to_message_id FROM conversation_summaries WHERE conversation_id = $1 ORDER BY to_message_id DESC LIMIT 1), 0)
	ORDER BY m.id DESC LIMIT $3) newest
ORDER BY id`

// Unsummarised returns the conversation's newest summary ("" when none)
// and the newest limit rows (at most) that left its window of window rows
// since, oldest first.
func (s *Store) Unsummarised(ctx context.Context, conversationID string, window, limit int) (string, []SummaryRow, error) {
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
	batch.Queue(unsummarisedSQL, conversationID, window, limit, maxSummarisedChars).Query(func(r pgx.Rows) error {
		var err error
		rows, err = pgx.CollectRows(r, pgx.RowToStructByName[SummaryRow])
		return err
	})
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return "", nil, fmt.Errorf("unsummarised rows: %w", translate(err))
	}
	return prev, rows, nil
}

// SaveSummary stores a summary (none when its Content is empty) and the
// model call that wrote it. A conversation deleted meanwhile (/new) keeps
// no summary.
func (s *Store) SaveSummary(ctx context.Context, sum Summary, call LLMCall) error {
	batch := &pgx.Batch{}
	if sum.Content != "" { // a failed call is recorded all the same
		batch.Queue(`INSERT INTO conversation_summaries (conversation_id, chat_id, from_message_id, to_message_id, content, model)
		SELECT id, $2, $3, $4, $5, $6 FROM conversations WHERE id = $1::uuid`,
			sum.ConversationID, sum.ChatID, sum.FromMessageID, sum.ToMessageID, cleanText(sum.Content), sum.Model)
	}
	queueLLMCall(batch, call)
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return fmt.Errorf("save summary: %w", translate(err))
	}
	return nil
}

// Summaries returns the conversation's summaries, oldest first.
func (s *Store) Summaries(ctx context.Context, conversationID string) ([]Summary, error) {
	rows, err := s.pool.Query(ctx, `SELECT conversation_id::text, chat_id, from_message_id, to_message_id, content, model
		FROM conversation_summaries WHERE conversation_id = $1 ORDER BY to_message_id`, conversationID)
	if err != nil {
		return nil, fmt.Errorf("summaries: %w", translate(err))
	}
	found, err := pgx.CollectRows(rows, pgx.RowToStructByPos[Summary])
	if err != nil {
		return nil, fmt.Errorf("summaries: %w", translate(err))
	}
	return found, nil
}

// queueSummary adds to batch the query of the newest summary of the
// conversation that conv (an expression over the batch's arguments)
// names, scanned into *dst.
func queueSummary(batch *pgx.Batch, conv string, dst *string, args ...any) {
	batch.Queue(`SELECT `+summaryTextSQL(conv), args...).QueryRow(func(row pgx.Row) error {
		return row.Scan(dst)
	})
}

// summaryTextSQL is the text of the newest summary of conversation conv, "" when none.
func summaryTextSQL(conv string) string {
	return `coalesce((SELECT content FROM conversation_summaries WHERE conversation_id = ` + conv + `
		ORDER BY to_message_id DESC LIMIT 1), '')`
}
