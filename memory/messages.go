package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/membot/membot/memory/pg"
)

// Role is the role of a message row, as the OpenAI API names them.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
	RoleSystem    Role = "system"
)

// ToolCall is one function call the model asked for, stored in an assistant
// row's tool_calls column. Arguments is the model's JSON text, as sent.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	// Extra holds the fields of the call the model server sent beyond
	// these (Gemini 3's extra_content with its thought signature), as a
	// JSON object, to be sent back with the call.
	Extra json.RawMessage `json:"extra,omitempty"`
}

// Message is one row of the messages table. Zero values stand for NULL.
type Message struct {
	ID                int64          `db:"id"`
	ConversationID    string         `db:"conversation_id"`
	Role              Role           `db:"role"`
	Content           string         `db:"content"`
	ToolCalls         []ToolCall     `db:"tool_calls"`
	ToolCallID        string         `db:"tool_call_id"`
	ToolName          string         `db:"tool_name"`
	TelegramMessageID int64          `db:"telegram_message_id"`
	UpdateID          int64          `db:"update_id"`
	Metadata          map[string]any `db:"metadata"`
	CreatedAt         time.Time      `db:"created_at"` // when it was stored
	// WrittenAt is when it was written: a user row's Telegram message
	// date (TurnStart.WrittenAt), else when it was stored. What a person
	// or the model is shown.
	WrittenAt time.Time `db:"written_at"`
	// ReasoningBack is, for an assistant row that called tools, the
	// reasoning the server sent in a field and needs back with the call
	// (DeepSeek's thinking mode): metadata's "reasoning" when its
	// "reasoning_from" is "reasoning_content". Read only, as a column.
	ReasoningBack string `db:"reasoning_back"`
	// Media is metadata's "media" of a user row: the files it came with
	// (their Telegram ids, kinds, sizes; never the bytes), as JSON, kept
	// raw so that loading the history decodes only the few rows that
	// have one. Read only, as a column.
	Media json.RawMessage `db:"media"`
	// Refused is, for a user row the model server refused for good (its
	// content, an image it cannot read), why: metadata's "refused". Read
	// with a turn's history only.
	Refused string `db:"-"`
	// What a user row's metadata says of who wrote it: its author's
	// Telegram id, whether Telegram marked it forwarded, and the inline
	// bot it was sent via ("" for none). Read with a turn's history only
	// (a resumed or retried turn's from its metadata: ReadOrigin).
	AuthorID  int64  `db:"-"`
	Forwarded bool   `db:"-"`
	ViaBot    string `db:"-"`
}

// ReadOrigin sets m's AuthorID, Forwarded and ViaBot from its metadata,
// for rows read with the whole of it.
func (m *Message) ReadOrigin() {
	if m.Role != RoleUser || m.Metadata == nil {
		return
	}
	switch id := m.Metadata["author_id"].(type) {
	case float64:
		m.AuthorID = int64(id)
	case json.Number:
		m.AuthorID, _ = id.Int64()
	}
	m.Forwarded, _ = m.Metadata["forwarded"].(bool)
	m.ViaBot, _ = m.Metadata["via_bot"].(string)
}

// scanHistoryRow reads a row of a turn's history (sql/turns.sql's turnHistory: a Message's
// columns, then refused and who wrote it), in that order,
// without its metadata: decoding every history row's JSON was a tenth of
// the bot's CPU time per turn.
func scanHistoryRow(row pgx.CollectableRow) (Message, error) {
	var m Message
	err := row.Scan(&m.ID, &m.ConversationID, &m.Role, &m.Content, &m.ToolCalls, &m.ToolCallID, &m.ToolName,
		&m.TelegramMessageID, &m.UpdateID, nil, &m.CreatedAt, &m.WrittenAt, &m.ReasoningBack, &m.Media, &m.Refused,
		&m.AuthorID, &m.Forwarded, &m.ViaBot)
	return m, err
}

func (s *Store) insertMessageArgs(conversationID string, m Message) pg.Args {
	var toolCalls any
	if len(m.ToolCalls) > 0 {
		calls := make([]ToolCall, len(m.ToolCalls))
		for i, c := range m.ToolCalls {
			calls[i] = ToolCall{ID: cleanText(c.ID), Name: cleanText(c.Name), Arguments: s.storable(c.Arguments), Extra: cleanExtra(c.Extra)}
		}
		toolCalls = calls
	}
	var metadata any
	if len(m.Metadata) > 0 {
		metadata = s.storableValue(m.Metadata)
	}
	return pg.Named(insertMessageParams{
		ConversationID: conversationID, Role: string(m.Role), Content: s.storable(m.Content), ToolCalls: toolCalls,
		ToolCallID: cleanText(m.ToolCallID), ToolName: cleanText(m.ToolName), TelegramMessageID: m.TelegramMessageID,
		UpdateID: m.UpdateID, Metadata: metadata,
	})
}

// insertMessageParams are the arguments of insertMessage.
type insertMessageParams struct {
	ConversationID    string `db:"conversation_id"`
	Role              string `db:"role"`
	Content           string `db:"content"`
	ToolCalls         any    `db:"tool_calls"`
	ToolCallID        string `db:"tool_call_id"`
	ToolName          string `db:"tool_name"`
	TelegramMessageID int64  `db:"telegram_message_id"`
	UpdateID          int64  `db:"update_id"`
	Metadata          any    `db:"metadata"`
}

// AppendMessages stores msgs in conversationID, in order, atomically, and
// returns their ids.
func (s *Store) AppendMessages(ctx context.Context, conversationID string, msgs ...Message) ([]int64, error) {
	return s.SaveStep(ctx, conversationID, Step{Messages: msgs})
}

// LastMessages returns the newest limit messages of a conversation, oldest first.
func (s *Store) LastMessages(ctx context.Context, conversationID string, limit int) ([]Message, error) {
	rows, err := s.pool.Query(ctx, lastMessagesSQL, conversationID, limit)
	if err != nil {
		return nil, fmt.Errorf("last messages: %w", translate(err))
	}
	msgs, err := pgx.CollectRows(rows, pgx.RowToStructByName[Message])
	if err != nil {
		return nil, fmt.Errorf("last messages: %w", translate(err))
	}
	return msgs, nil
}

// cleanExtra makes a tool call's extra fields storable; what is not a JSON
// object is dropped.
func cleanExtra(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || raw[0] != '{' || !json.Valid(raw) {
		return nil
	}
	clean, err := cleanJSON(raw)
	if err != nil {
		return nil
	}
	return clean
}

// The statements of this file, whole in sql/messages.sql.
var (
	insertMessageSQL = statement("insertMessage")
	lastMessagesSQL  = statement("lastMessages")
)
