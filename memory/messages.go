package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
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
	CreatedAt         time.Time      `db:"created_at"`
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
}

// messageColumns selects a row in the shape of Message.
const messageColumns = `id, conversation_id::text AS conversation_id, role, content, tool_calls,
	coalesce(tool_call_id, '') AS tool_call_id, coalesce(tool_name, '') AS tool_name,
	coalesce(telegram_message_id, 0) AS telegram_message_id, coalesce(update_id, 0) AS update_id,
	metadata, created_at,
	CASE WHEN tool_calls IS NOT NULL AND metadata->>'reasoning_from' = 'reasoning_content'
		THEN coalesce(metadata->>'reasoning', '') ELSE '' END AS reasoning_back,
	CASE WHEN role = 'user' THEN metadata->'media' END AS media`

var insertMessageSQL = `INSERT INTO messages
	(conversation_id, role, content, tool_calls, tool_call_id, tool_name, telegram_message_id, update_id, metadata, search_vector)
VALUES ($1, $2, $3, $4, NULLIF($5, ''), NULLIF($6, ''), NULLIF($7::bigint, 0), NULLIF($8::bigint, 0), coalesce($9, '{}'::jsonb),
	` + searchVectorOf("$2", "$3") + `)
RETURNING id`

// searchVectorOf is the stems a row of role with content keeps
// (messages.search_vector, membot_message_stems of migration 00026): the
// bot's inserts compute them in their own statement, planned (and the
// function inlined) once per connection.
func searchVectorOf(role, content string) string {
	return `membot_message_stems(` + role + `::text, ` + content + `::text)`
}

// scanHistoryRow reads a row selected with messageColumns, in that order,
// without its metadata: decoding every history row's JSON was a tenth of
// the bot's CPU time per turn.
func scanHistoryRow(row pgx.CollectableRow) (Message, error) {
	var m Message
	err := row.Scan(&m.ID, &m.ConversationID, &m.Role, &m.Content, &m.ToolCalls, &m.ToolCallID, &m.ToolName,
		&m.TelegramMessageID, &m.UpdateID, nil, &m.CreatedAt, &m.ReasoningBack, &m.Media)
	return m, err
}

// lastMessagesQuery selects the newest rows of one conversation, oldest
// first, by a backward scan of the (conversation_id, id) index that stops
// after limit rows, however long the conversation and the table are.
//
// It says "conversation_id between c and c" rather than "= c" on purpose.
// With "=", the planner knows conversation_id is constant, orders by id
// alone, and may then walk the primary key back from the newest row of the
// whole table, skipping other conversations' rows, when it believes the
// conversation holds a large share of them. That is fast only if the
// conversation was written to lately; a long one taken up again after a
// pause would have millions of rows to skip. With the range, only the
// (conversation_id, id) index gives the order asked for. (The columns are
// qualified: unqualified, ORDER BY would take the text conversation_id of
// the select list, which no index gives.)
func lastMessagesQuery(conversation, limit string) string {
	return `SELECT * FROM (SELECT ` + messageColumns + ` FROM messages m
	WHERE m.conversation_id >= ` + conversation + ` AND m.conversation_id <= ` + conversation + `
	ORDER BY m.conversation_id DESC, m.id DESC LIMIT ` + limit + `) newest ORDER BY id`
}

func insertMessageArgs(conversationID string, m Message) []any {
	var toolCalls any
	if len(m.ToolCalls) > 0 {
		calls := make([]ToolCall, len(m.ToolCalls))
		for i, c := range m.ToolCalls {
			calls[i] = ToolCall{ID: cleanText(c.ID), Name: cleanText(c.Name), Arguments: cleanText(c.Arguments), Extra: cleanExtra(c.Extra)}
		}
		toolCalls = calls
	}
	var metadata any
	if len(m.Metadata) > 0 {
		metadata = cleanValue(m.Metadata)
	}
	return []any{conversationID, string(m.Role), cleanText(m.Content), toolCalls, cleanText(m.ToolCallID),
		cleanText(m.ToolName), m.TelegramMessageID, m.UpdateID, metadata}
}

// AppendMessages stores msgs in conversationID, in order, atomically, and
// returns their ids.
func (s *Store) AppendMessages(ctx context.Context, conversationID string, msgs ...Message) ([]int64, error) {
	return s.SaveStep(ctx, conversationID, Step{Messages: msgs})
}

// LastMessages returns the newest limit messages of a conversation, oldest first.
func (s *Store) LastMessages(ctx context.Context, conversationID string, limit int) ([]Message, error) {
	rows, err := s.pool.Query(ctx, lastMessagesQuery("$1", "$2"), conversationID, limit)
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
