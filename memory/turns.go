package memory

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/membot/membot/memory/pg"
)

// TurnStart is what a new turn stores: who wrote what, in which chat.
type TurnStart struct {
	User              User
	Chat              Chat
	UpdateID          int64 // the Telegram update being answered; 0 when none
	TelegramMessageID int64
	Content           string // the text as the model will see it
	// WrittenAt is when the person wrote it (the Telegram message's
	// date); zero: when it is stored.
	WrittenAt    time.Time
	HistoryLimit int
	FactChars    int // how many characters of the user's facts to load
	// Metadata is added to the user row's metadata (the files it came
	// with, under "media"); nil for none.
	Metadata map[string]any
	// Kind is the message_received event's kind: "text" when "", "voice", "photo", ...
	Kind string
	// Recall, when its Limit is not 0, finds the rows older than the
	// window that best match the user's message (auto-recall).
	Recall Recall
}

// Recall is what a turn's auto-recall looks for (see Search). Its words
// are the stems stored with the turn's row; Text only tells whether the
// message has any (a sticker has none).
type Recall struct {
	Limit int // how many rows found at most; each may bring its neighbours
	// Chars bounds the recalled rows' texts, neighbours included; 0:
	// charsPerHit for each of Limit.
	Chars          int
	Text           string
	Embedding      []float32
	EmbeddingModel string
}

// Turn is the state a turn works from.
type Turn struct {
	ConversationID string
	UserMessageID  int64
	// History is the newest HistoryLimit rows of the conversation, oldest
	// first; the user's new row is the last of them. Their Metadata is left
	// out (the model does not see it; LastMessages has whole rows).
	History []Message
	// Answer is the final assistant row already stored for this update by an
	// earlier attempt that was cut short, or nil.
	Answer *Message
	// Mode is the conversation's mode: which system prompt the model gets.
	Mode string
	// Model is the conversation's model (/model); "" for the default.
	Model string
	// Facts are the user's newest long-term facts, within FactChars.
	Facts []Fact
	// Tombstones are what is kept of the facts the user asked to forget,
	// loaded with the facts (private chats), and Forgotten how many.
	Tombstones []Tombstone
	Forgotten  int
	// Approvals are the chat's pending approvals and every approval asked
	// by this turn (of this update, or of the resumed assistant row).
	Approvals []Approval
	// VoiceReplies: the chat has its answers spoken too (/voice).
	VoiceReplies bool
	// Summary is the conversation's newest summary of the rows that left
	// the window; "" when none.
	Summary string
	// Recalled are the rows older than the window that best match the
	// user's message (TurnStart.Recall), best first.
	Recalled []Snippet
}

// turnRankSQL ranks the auto-recall of the turn's row, known once the
// batch that stored it is done, before its window, without and with
// vectors; rowFoundSQL is turnFoundSQL for it (sql/turns.sql).
var turnRankSQL = recallStatements{fullText: turnRankFullTextSQL, hybrid: turnRankHybridSQL}

// rankRow runs turnRankSQL for row (its window of window rows) and r,
// after a found statement said it has rows to rank. Without r's
// embedding the semantic side has nothing to compare: full-text alone
// ranks the same.
func (s *Store) rankRow(ctx context.Context, row int64, window int, r Recall) ([]Snippet, error) {
	emb := r.Embedding
	if !s.vectors.Load() {
		emb = nil
	}
	var recalled []Snippet
	batch := &pgx.Batch{}
	batch.Queue(genericPlansSQL)
	params := turnRankParams{TurnID: row, HistoryLimit: window, RecallLimit: r.Limit}
	sql, args := turnRankSQL.with(params, emb, r.EmbeddingModel)
	queueRecall(batch, &recalled, sql, args)
	return recalled, s.pool.SendBatch(ctx, batch).Close()
}

// turnRankParams are the arguments of turnRankFullText, and of
// turnRankHybrid with the embedding (withEmbedding).
type turnRankParams struct {
	TurnID       int64 `db:"turn_id"`
	HistoryLimit int   `db:"history_limit"`
	RecallLimit  int   `db:"recall_limit"`
}

// recallRow is the auto-recall of stored user row row, full-text alone
// (a retried turn's: its text is not embedded): rowFoundSQL, then
// turnRankSQL when it found something.
func (s *Store) recallRow(ctx context.Context, row int64, window, limit int) ([]Snippet, error) {
	found := false
	batch := &pgx.Batch{}
	batch.Queue(genericPlansSQL)
	batch.Queue(rowFoundSQL, row, window, limit).QueryRow(func(r pgx.Row) error { return r.Scan(&found) })
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil || !found {
		return nil, err
	}
	return s.rankRow(ctx, row, window, Recall{Limit: limit})
}

// StartTurn upserts the user, stores their message in the chat's current
// conversation, logs its arrival and loads the history, in one round trip
// (two when its auto-recall has rows to rank).
func (s *Store) StartTurn(ctx context.Context, in TurnStart) (*Turn, error) {
	t := &Turn{}
	batch := &pgx.Batch{}
	batch.Queue(turnSettingsSQL) // asyncCommit and genericPlans in one statement
	batch.Queue(upsertUserSQL, upsertUserArgs(in.User))
	var metadata any
	if len(in.Metadata) > 0 {
		metadata = s.storableValue(in.Metadata)
	}
	kind := in.Kind
	if kind == "" {
		kind = "text"
	}
	chat := in.Chat
	var written any
	if !in.WrittenAt.IsZero() {
		written = in.WrittenAt
	}
	batch.Queue(insertUserMessageSQL, pg.Named(insertUserMessageParams{
		ChatID: chat.ID, UserID: in.User.TelegramUserID, Content: s.storable(in.Content), TelegramMessageID: in.TelegramMessageID,
		UpdateID: in.UpdateID, Metadata: metadata, ThreadID: chat.Thread, WrittenAt: written,
	}))
	batch.Queue(receivedTextSQL, pg.Named(receivedTextParams{
		ChatID: chat.ID, UpdateID: in.UpdateID, UserID: in.User.TelegramUserID, Kind: kind, ThreadID: chat.Thread,
	}))
	batch.Queue(turnConversationSQL, chat.ID, in.UpdateID, chat.Thread).
		QueryRow(func(row pgx.Row) error {
			return row.Scan(&t.ConversationID, &t.UserMessageID, &t.Mode, &t.Model, &t.VoiceReplies, &t.Summary)
		})
	turnRow := turnRowParams{ChatID: chat.ID, UpdateID: in.UpdateID, HistoryLimit: in.HistoryLimit, ThreadID: chat.Thread}
	batch.Queue(turnHistorySQL, pg.Named(turnRow)).Query(func(rows pgx.Rows) error {
		var err error
		t.History, err = pgx.CollectRows(rows, scanHistoryRow)
		return err
	})
	queueAnswer(batch, in.UpdateID, &t.Answer)
	queueFacts(batch, in.User.TelegramUserID, in.FactChars, t)
	queueApprovals(batch, &t.Approvals, turnApprovalsSQL, chat.ID, in.UpdateID)
	found := false
	if words := searchWords(in.Recall.Text); in.Recall.Limit > 0 && (words != "" || in.Recall.Embedding != nil) {
		params := turnRecallParams{turnRowParams: turnRow, RecallLimit: in.Recall.Limit}
		if s.vectors.Load() && in.Recall.Embedding != nil { // the semantic side ranks anyway
			queueRecall(batch, &t.Recalled, turnRecallSQL, withEmbedding(params, in.Recall.Embedding, in.Recall.EmbeddingModel))
		} else {
			batch.Queue(turnFoundSQL, pg.Named(params)).QueryRow(func(row pgx.Row) error { return row.Scan(&found) })
		}
	}
	err := s.pool.SendBatch(ctx, batch).Close()
	if err == nil && found { // a round trip more, after the turn's row is stored
		t.Recalled, err = s.rankRow(ctx, t.UserMessageID, in.HistoryLimit, in.Recall)
	}
	if err == nil && len(t.Recalled) > 0 { // and one for the rows beside them
		t.Recalled, err = s.inContext(ctx, t.ConversationID, windowFrom(t), t.Recalled, in.Recall.budget())
	}
	if err != nil {
		return nil, fmt.Errorf("start turn: %w", translate(err))
	}
	return t, nil
}

// insertUserMessageParams are the arguments of insertUserMessage.
type insertUserMessageParams struct {
	ChatID            int64  `db:"chat_id"`
	UserID            int64  `db:"telegram_user_id"`
	Content           string `db:"content"`
	TelegramMessageID int64  `db:"telegram_message_id"`
	UpdateID          int64  `db:"update_id"`
	Metadata          any    `db:"metadata"`
	ThreadID          int64  `db:"message_thread_id"`
	WrittenAt         any    `db:"written_at"` // nil: when stored
}

// receivedTextParams are the arguments of receivedText.
type receivedTextParams struct {
	ChatID   int64  `db:"chat_id"`
	UpdateID int64  `db:"update_id"`
	UserID   int64  `db:"telegram_user_id"`
	Kind     string `db:"kind"`
	ThreadID int64  `db:"message_thread_id"`
}

// turnRowParams are the arguments of turnHistory: the turn's user row
// (its update, or else the newest of the chat's topic) and its window.
type turnRowParams struct {
	ChatID       int64 `db:"chat_id"`
	UpdateID     int64 `db:"update_id"`
	HistoryLimit int   `db:"history_limit"`
	ThreadID     int64 `db:"message_thread_id"`
}

// turnRecallParams are the arguments of turnFound, and of turnRecall with
// the embedding (withEmbedding).
type turnRecallParams struct {
	turnRowParams
	RecallLimit int `db:"recall_limit"`
}

// budget is the characters r's rows may take.
func (r Recall) budget() int {
	if r.Chars > 0 {
		return r.Chars
	}
	return charsPerHit * r.Limit
}

// windowFrom is the oldest row the model sees anyway in turn (its
// window, the turn's row included): recalled rows and their neighbours
// are older.
func windowFrom(t *Turn) int64 {
	from := t.UserMessageID
	for _, m := range t.History {
		if m.ID < from {
			from = m.ID
		}
	}
	return from
}

// queueRecall adds a turn's auto-recall statement to batch, its rows to *into.
func queueRecall(batch *pgx.Batch, into *[]Snippet, sql string, args pg.Args) {
	batch.Queue(sql, args).Query(func(rows pgx.Rows) error {
		var err error
		*into, err = pgx.CollectRows(rows, pgx.RowToStructByName[Snippet])
		return err
	})
}

// queueAnswer adds to batch the query of the final answer already stored
// for the update, scanned into *dst.
func queueAnswer(batch *pgx.Batch, updateID int64, dst **Message) {
	if updateID == 0 {
		return
	}
	batch.Queue(turnAnswerSQL, updateID).Query(func(rows pgx.Rows) error {
		answer, err := pgx.CollectExactlyOneRow(rows, pgx.RowToAddrOfStructByName[Message])
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		*dst = answer
		return err
	})
}

// ResumeStart names a turn to continue once its approvals are decided.
type ResumeStart struct {
	UserID             int64
	ChatID             int64
	ConversationID     string
	AssistantMessageID int64 // the row whose tool calls waited for approval
	UpdateID           int64 // the update that carried the decision
	HistoryLimit       int
	FactChars          int
}

// ResumeTurn loads what a turn paused for approval needs to go on, in one
// round trip: History (the window, with the waiting assistant row and its
// results), the user row that began the turn, the answer already stored for
// the deciding update (if a crash cut the first attempt short), the user's
// facts, and the approvals of the assistant row and of the chat.
func (s *Store) ResumeTurn(ctx context.Context, in ResumeStart) (*Turn, error) {
	t := &Turn{ConversationID: in.ConversationID}
	batch := &pgx.Batch{}
	batch.Queue(resumeHistorySQL, in.ConversationID, in.HistoryLimit, in.AssistantMessageID).Query(func(rows pgx.Rows) error {
		var err error
		t.History, err = pgx.CollectRows(rows, pgx.RowToStructByName[Message])
		for i := range t.History {
			t.History[i].ReadOrigin()
		}
		return err
	})
	batch.Queue(resumeUserRowSQL,
		in.ConversationID, in.AssistantMessageID).QueryRow(func(row pgx.Row) error { return row.Scan(&t.UserMessageID) })
	queueAnswer(batch, in.UpdateID, &t.Answer)
	queueFacts(batch, in.UserID, in.FactChars, t)
	queueApprovals(batch, &t.Approvals, resumeApprovalsSQL, in.AssistantMessageID, in.ChatID)
	queueMode(batch, in.ConversationID, &t.Mode)
	queueModel(batch, in.ConversationID, &t.Model)
	queueSummary(batch, resumeSummarySQL, &t.Summary, in.ConversationID)
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return nil, fmt.Errorf("resume turn: %w", translate(err))
	}
	return t, nil
}

// The settings a batch begins with, shared by memory's repositories
// (memory/pg/sql/session.sql).
var (
	asyncCommitSQL  = pg.AsyncCommitSQL
	genericPlansSQL = pg.GenericPlansSQL
)

// The statements of this file, whole in sql/turns.sql.
var (
	insertUserMessageSQL = statement("insertUserMessage")
	turnHistorySQL       = statement("turnHistory")
	turnConversationSQL  = statement("turnConversation")
	turnRecallSQL        = statement("turnRecall")
	turnFoundSQL         = statement("turnFound")
	turnRankFullTextSQL  = statement("turnRankFullText")
	turnRankHybridSQL    = statement("turnRankHybrid")
	rowFoundSQL          = statement("rowFound")
	receivedTextSQL      = statement("receivedText")
	turnAnswerSQL        = statement("turnAnswer")
	resumeHistorySQL     = statement("resumeHistory")
	resumeSummarySQL     = statement("resumeSummary")
	turnSettingsSQL      = statement("turnSettings")
	resumeUserRowSQL     = statement("resumeUserRow")
	turnUserRowSQL       = statement("turnUserRow")
)
