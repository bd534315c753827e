package memory

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/membot/membot/memory/pg"
)

// Event types of the events table (docs/ADMIN.md describes their payloads).
const (
	EventMessageReceived   = "message_received"
	EventReplySent         = "reply_sent"
	EventToolCalled        = "tool_called"
	EventApprovalRequested = "approval_requested"
	EventApprovalDecided   = "approval_decided"
	EventLLMError          = "llm_error"
	EventRateLimited       = "rate_limited"
	EventAccessDenied      = "access_denied"
	EventConversationReset = "conversation_reset"
	EventExportSent        = "export_sent"
)

// Events keeps the event log: what arrived, was refused, was sent, and
// the notices told. A turn's events are stored with its step (SaveStep).
// It is safe for concurrent use.
type Events struct{ base }

// Event is one row of the event log. Zero ids stand for NULL.
type Event struct {
	Type           string
	UserID         int64
	ChatID         int64
	ConversationID string
	UpdateID       int64
	Payload        map[string]any
}

func (s base) queueEvent(batch *pgx.Batch, e Event) {
	var payload any
	if len(e.Payload) > 0 {
		payload = s.storableValue(e.Payload)
	}
	batch.Queue(insertEventSQL, pg.Named(insertEventParams{
		Type: e.Type, UserID: e.UserID, ChatID: e.ChatID, ConversationID: e.ConversationID, UpdateID: e.UpdateID,
		Payload: payload,
	}))
}

// insertEventParams are the arguments of insertEvent.
type insertEventParams struct {
	Type           string `db:"type"`
	UserID         int64  `db:"telegram_user_id"`
	ChatID         int64  `db:"chat_id"`
	ConversationID string `db:"conversation_id"`
	UpdateID       int64  `db:"update_id"`
	Payload        any    `db:"payload"`
}

// AddEvents stores events, atomically.
func (s Events) AddEvents(ctx context.Context, events ...Event) error {
	batch := &pgx.Batch{}
	for _, e := range events {
		s.queueEvent(batch, e)
	}
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return fmt.Errorf("add events: %w", translate(err))
	}
	return nil
}

// ExportAgain tells when userID may export their data again, when they
// had perHour exports (/export's and the Mini App's together) in the
// hour before now: zero when they may now, or when perHour < 1 (no
// bound).
func (s Events) ExportAgain(ctx context.Context, userID int64, perHour int, now time.Time) (time.Time, error) {
	if perHour < 1 {
		return time.Time{}, nil
	}
	n, oldest, err := s.eventsSince(ctx, userID, EventExportSent, now.Add(-time.Hour))
	if err != nil || n < perHour {
		return time.Time{}, err
	}
	return oldest.Add(time.Hour), nil
}

// eventsSince counts the user's events of type typ since since, and
// tells when the oldest of them happened (zero when there is none).
func (s Events) eventsSince(ctx context.Context, userID int64, typ string, since time.Time) (n int, oldest time.Time, err error) {
	if err := s.pool.QueryRow(ctx, eventsSinceSQL, userID, typ, since).Scan(&n, &oldest); err != nil {
		return 0, time.Time{}, fmt.Errorf("events since: %w", translate(err))
	}
	if n == 0 {
		oldest = time.Time{}
	}
	return n, oldest, nil
}

// LLMCall is one model call as the llm_calls table keeps it.
type LLMCall struct {
	UserID           int64
	ChatID           int64
	ConversationID   string
	UpdateID         int64
	Model            string
	PromptTokens     int
	CompletionTokens int
	Latency          time.Duration
	Status           string // "ok", or why it failed: an HTTP status, "timeout", "network", "error"
	Error            string
	// UsageEstimated: the server sent no usage, the tokens are an estimate.
	UsageEstimated bool
	// Purpose is what the call was for: PurposeChat ("" too), a recording's
	// PurposeTranscription or PurposeSpeech, a picture's PurposeImage, or the background work's
	// PurposeFacts, PurposeSummary, PurposeEmbeddings.
	Purpose string
	// AudioSeconds is how long the recording a transcription heard was.
	AudioSeconds float64
}

// Purposes of model calls (llm_calls.purpose).
const (
	PurposeChat          = "chat"
	PurposeFacts         = "facts"
	PurposeSummary       = "summary"
	PurposeEmbeddings    = "embeddings"
	PurposeTranscription = "transcription"
	PurposeSpeech        = "speech"
	PurposeImage         = "image" // a picture drawn (/image, generate_image)
)

func (s base) queueLLMCall(batch *pgx.Batch, c LLMCall) {
	status := c.Status
	if status == "" {
		status = "ok"
	}
	batch.Queue(insertLLMCallSQL, pg.Named(insertLLMCallParams{
		UserID: c.UserID, ChatID: c.ChatID, ConversationID: c.ConversationID, UpdateID: c.UpdateID, Model: c.Model,
		PromptTokens: c.PromptTokens, CompletionTokens: c.CompletionTokens, LatencyMS: c.Latency.Milliseconds(),
		Status: status, Error: s.storable(c.Error), UsageEstimated: c.UsageEstimated, Purpose: c.Purpose,
		AudioSeconds: c.AudioSeconds,
	}))
}

// insertLLMCallParams are the arguments of insertLLMCall.
type insertLLMCallParams struct {
	UserID           int64   `db:"telegram_user_id"`
	ChatID           int64   `db:"chat_id"`
	ConversationID   string  `db:"conversation_id"`
	UpdateID         int64   `db:"update_id"`
	Model            string  `db:"model"`
	PromptTokens     int     `db:"prompt_tokens"`
	CompletionTokens int     `db:"completion_tokens"`
	LatencyMS        int64   `db:"latency_ms"`
	Status           string  `db:"status"`
	Error            string  `db:"error"`
	UsageEstimated   bool    `db:"usage_estimated"`
	Purpose          string  `db:"purpose"`
	AudioSeconds     float64 `db:"audio_seconds"`
}

// TaskNoticeSent tells whether userID's scheduled runs in chatID were
// told since since that limit (the payload's "limit" of a rate_limited
// event) stopped them.
func (s Events) TaskNoticeSent(ctx context.Context, userID, chatID int64, limit string, since time.Time) (bool, error) {
	var sent bool
	args := pg.Named(taskNoticeSentParams{UserID: userID, ChatID: chatID, Limit: limit, Since: since})
	if err := s.pool.QueryRow(ctx, taskNoticeSentSQL, args).Scan(&sent); err != nil {
		return false, fmt.Errorf("task notice sent: %w", translate(err))
	}
	return sent, nil
}

// taskNoticeSentParams are the arguments of taskNoticeSent.
type taskNoticeSentParams struct {
	UserID int64     `db:"telegram_user_id"`
	ChatID int64     `db:"chat_id"`
	Limit  string    `db:"limit"`
	Since  time.Time `db:"since"`
}

// Step is what one step of a turn stores: its messages, the model calls
// that produced them and the events they make, all or nothing.
type Step struct {
	Messages []Message
	LLMCalls []LLMCall
	Events   []Event
	// FlushLater commits the step without waiting for the disk (see
	// asyncCommitSQL). For a turn's final answer: it reaches the disk with
	// the next commit that waits, of any session (normally the update's
	// completion, right after the send), or within 3 × wal_writer_delay
	// (0.6 s by default). Were the server or its machine to crash before,
	// the answer and its model call would be lost, the update not done, and
	// the turn would run again: a second reply (a streamed one edits the
	// messages it showed instead), newly written rather than a copy, and a
	// second model call. A crash between sending and completing costs a
	// second reply already.
	FlushLater bool
	// Refused, when set, notes on a user row that the model server refused
	// it for good, and why (messages.metadata's "refused").
	Refused *Refused
}

// Refused is a user row the model server refused for good.
type Refused struct {
	MessageID int64
	Reason    string
}

// SaveStep stores a step in one round trip and returns the messages' ids.
// Calls and events without a conversation get conversationID.
func (s *Store) SaveStep(ctx context.Context, conversationID string, st Step) ([]int64, error) {
	batch := &pgx.Batch{}
	ids := s.queueStep(batch, conversationID, st)
	// A batch runs as one implicit transaction: all rows or none.
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return nil, fmt.Errorf("save step: %w", translate(err))
	}
	return ids, nil
}

// queueStep adds a step's inserts to batch; the returned slice gets the
// messages' ids when the batch has run.
func (s *Store) queueStep(batch *pgx.Batch, conversationID string, st Step) []int64 {
	ids := make([]int64, len(st.Messages))
	if st.FlushLater {
		batch.Queue(asyncCommitSQL)
	}
	for i, m := range st.Messages {
		batch.Queue(insertMessageSQL, s.insertMessageArgs(conversationID, m)).QueryRow(func(row pgx.Row) error {
			return row.Scan(&ids[i])
		})
	}
	for _, c := range st.LLMCalls {
		if c.ConversationID == "" {
			c.ConversationID = conversationID
		}
		s.queueLLMCall(batch, c)
	}
	for _, e := range st.Events {
		if e.ConversationID == "" {
			e.ConversationID = conversationID
		}
		s.queueEvent(batch, e)
	}
	if st.Refused != nil {
		batch.Queue(markRefusedSQL, st.Refused.MessageID, s.storable(st.Refused.Reason))
	}
	return ids
}

// The statements of this file, whole in sql/events.sql.
var (
	insertEventSQL    = statement("insertEvent")
	insertLLMCallSQL  = statement("insertLLMCall")
	markRefusedSQL    = statement("markRefused")
	eventsSinceSQL    = statement("eventsSince")
	taskNoticeSentSQL = statement("taskNoticeSent")
)
