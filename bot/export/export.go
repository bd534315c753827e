// Package export writes a conversation out for /export: Markdown to read
// and JSON with every column of every row, for machines. Each format goes
// to files on disk of bounded size (parts), so a conversation of any
// length costs a bounded amount of memory.
package export

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/internal/stamp"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/userdata"
)

// MaxParts is how many documents of each format one export has at most;
// past them the export is cut (the walk stops with ErrFull).
const MaxParts = 4

// Export is what Write wrote: the conversation, its documents (the
// Markdown first, then the JSON), how many of its rows there are and how
// many the documents hold, and how many of those are messages as the chat
// showed them (Shown rows: the caption's count, of what the files hold).
type Export struct {
	Conversation userdata.Conversation
	Docs         []*Doc
	Total, Shown int
	Messages     int
}

// Shown tells whether a row is a message the chat showed: one the user
// sent, or an answer of the bot (not a tool call, a result or a note).
// /history, /undo and /export count these.
func Shown(m *memory.Message) bool {
	return m.Role == memory.RoleUser || (m.Role == memory.RoleAssistant && len(m.ToolCalls) == 0)
}

// Walk visits a conversation: head once, then each row, oldest first
// (userdata.Store.WalkCurrentTranscript, for one chat).
type Walk func(head func(c userdata.Conversation, rows int) error, each func(m *memory.Message) error) error

// Write writes the conversation walk visits to documents in dir: parts of
// at most limit bytes, cut past MaxParts of them (Shown < Total then); the
// Markdown in lang, its times in loc.
func Write(walk Walk, dir string, limit int64, lang string, loc *time.Location) (*Export, error) {
	e := &Export{}
	var md, js *Doc
	err := walk(
		func(c userdata.Conversation, rows int) error {
			e.Conversation, e.Total = c, rows
			md = &Doc{Dir: dir, Ext: "md", Limit: limit, Begin: func(w io.Writer) { markdownHead(w, c, rows, loc) }}
			head, err := jsonHead(c)
			if err != nil {
				return err
			}
			js = &Doc{Dir: dir, Ext: "json", Limit: limit, Sep: ",\n",
				Begin: func(w io.Writer) { w.Write(head) }, End: "\n  ]\n}\n"}
			return nil
		},
		func(m *memory.Message) error {
			mdEntry := markdownEntry(m, lang, loc)
			jsEntry, err := jsonEntry(m)
			if err != nil {
				return err
			}
			if !md.Fits(len(mdEntry)) || !js.Fits(len(jsEntry)) {
				return ErrFull
			}
			if err := md.Add(mdEntry); err != nil {
				return err
			}
			e.Shown++
			if Shown(m) {
				e.Messages++
			}
			return js.Add(jsEntry)
		})
	if err != nil && !errors.Is(err, ErrFull) {
		return e, err
	}
	if err := errors.Join(md.Close(), js.Close()); err != nil {
		return e, fmt.Errorf("export: %w", err)
	}
	e.Docs = []*Doc{md, js}
	return e, nil
}

// ErrFull stops the walk when the next message fits no document.
var ErrFull = errors.New("the export is as large as it may be")

// Doc is one format of an export: files on disk of at most Limit
// bytes each (a part holds one message at least), a new one begun at a
// message boundary, at most MaxParts of them.
type Doc struct {
	Dir, Ext string
	Limit    int64
	Begin    func(w io.Writer) // writes what each part starts with
	Sep      string            // between two messages of a part
	End      string            // what each part ends with

	Parts   []string // the files written, in order
	f       *os.File
	w       *bufio.Writer
	size    int64 // of the current part
	entries int   // in the current part
}

// Fits reports whether an entry of n bytes goes into the current part or,
// when that is full, into a new one.
func (d *Doc) Fits(n int) bool {
	return d.f != nil && (d.entries == 0 || d.size+int64(len(d.Sep)+n+len(d.End)) <= d.Limit) ||
		len(d.Parts) < MaxParts
}

// Add writes an entry that fits, starting a new part when it must.
func (d *Doc) Add(entry []byte) error {
	if d.f == nil || (d.entries > 0 && d.size+int64(len(d.Sep)+len(entry)+len(d.End)) > d.Limit) {
		if err := d.Close(); err != nil {
			return err
		}
		f, err := os.Create(filepath.Join(d.Dir, fmt.Sprintf("%s-%d", d.Ext, len(d.Parts)+1)))
		if err != nil {
			return err
		}
		d.Parts = append(d.Parts, f.Name())
		d.f, d.w, d.size, d.entries = f, bufio.NewWriter(f), 0, 0
		d.write([]byte(nil), d.Begin)
	}
	if d.entries > 0 {
		d.write([]byte(d.Sep), nil)
	}
	d.write(entry, nil)
	d.entries++
	return nil
}

// write adds b, or what fn writes, to the current part, counting its size.
func (d *Doc) write(b []byte, fn func(io.Writer)) {
	cw := &countingWriter{w: d.w}
	if fn != nil {
		fn(cw)
	} else {
		cw.Write(b)
	}
	d.size += cw.n
}

// Close ends the current part, if one is open.
func (d *Doc) Close() error {
	if d == nil || d.f == nil {
		return nil
	}
	d.w.WriteString(d.End)
	err := errors.Join(d.w.Flush(), d.f.Close())
	d.f = nil
	return err
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// markdownHead starts each Markdown part.
func markdownHead(w io.Writer, c userdata.Conversation, rows int, loc *time.Location) {
	fmt.Fprintf(w, "# membot conversation\n\n- id: %s\n- started: %s (%s)\n- mode: %s\n- messages: %d\n",
		c.ID, texts.Clock(c.CreatedAt, loc), loc, c.Mode, rows)
}

// markdownEntry writes one row for people to read.
func markdownEntry(m *memory.Message, lang string, loc *time.Location) []byte {
	var b strings.Builder
	at := texts.Clock(m.WrittenAt, loc)
	switch {
	case m.Role == memory.RoleUser:
		fmt.Fprintf(&b, "\n## %s · %s\n\n%s\n", texts.For(lang).You, at, stamp.Strip(m.Content))
	case m.Role == memory.RoleAssistant && len(m.ToolCalls) > 0:
		fmt.Fprintf(&b, "\n## %s · %s · tool calls\n\n", texts.For(lang).Bot, at)
		if m.Content != "" {
			fmt.Fprintf(&b, "%s\n\n", m.Content)
		}
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, "`%s`\n%s\n", c.Name, fence(c.Arguments, "json"))
		}
	case m.Role == memory.RoleAssistant:
		fmt.Fprintf(&b, "\n## %s · %s\n\n%s\n", texts.For(lang).Bot, at, m.Content)
	case m.Role == memory.RoleTool:
		fmt.Fprintf(&b, "\n### tool %s · %s\n\n%s\n", m.ToolName, at, fence(m.Content, ""))
	default:
		fmt.Fprintf(&b, "\n### %s · %s\n\n%s\n", m.Role, at, m.Content)
	}
	return []byte(b.String())
}

// fence puts text in a code block whose fence none of its lines can close.
func fence(text, lang string) string {
	marker := "```"
	for strings.Contains(text, marker) {
		marker += "`"
	}
	return marker + lang + "\n" + text + "\n" + marker
}

// exportedMessage is a messages row with every column; NULL is null.
type exportedMessage struct {
	ID                int64             `json:"id"`
	ConversationID    string            `json:"conversation_id"`
	Role              memory.Role       `json:"role"`
	Content           string            `json:"content"`
	ToolCalls         []memory.ToolCall `json:"tool_calls"`
	ToolCallID        *string           `json:"tool_call_id"`
	ToolName          *string           `json:"tool_name"`
	TelegramMessageID *int64            `json:"telegram_message_id"`
	UpdateID          *int64            `json:"update_id"`
	Metadata          map[string]any    `json:"metadata"`
	CreatedAt         time.Time         `json:"created_at"`
	WrittenAt         time.Time         `json:"written_at"`
}

// jsonHead starts each JSON part: the conversation, then its messages.
func jsonHead(c userdata.Conversation) ([]byte, error) {
	conv, err := json.MarshalIndent(map[string]any{"id": c.ID, "telegram_user_id": c.TelegramUserID,
		"chat_id": c.ChatID, "created_at": c.CreatedAt, "mode": c.Mode}, "  ", "  ")
	if err != nil {
		return nil, fmt.Errorf("export: encode json: %w", err)
	}
	return []byte("{\n  \"conversation\": " + string(conv) + ",\n  \"messages\": [\n"), nil
}

// jsonEntry writes one row with every column, for machines.
func jsonEntry(m *memory.Message) ([]byte, error) {
	data, err := json.MarshalIndent(exportedMessage{ID: m.ID, ConversationID: m.ConversationID, Role: m.Role, Content: m.Content,
		ToolCalls: m.ToolCalls, ToolCallID: nullable(m.ToolCallID), ToolName: nullable(m.ToolName),
		TelegramMessageID: nullable(m.TelegramMessageID), UpdateID: nullable(m.UpdateID), Metadata: m.Metadata, CreatedAt: m.CreatedAt,
		WrittenAt: m.WrittenAt},
		"    ", "  ")
	if err != nil {
		return nil, fmt.Errorf("export: encode json: %w", err)
	}
	return append([]byte("    "), data...), nil
}

// nullable is nil for the zero value, which stands for NULL in memory.Message.
func nullable[T comparable](v T) *T {
	var zero T
	if v == zero {
		return nil
	}
	return &v
}

// Send hands each document of e to send, in order: named after the
// conversation's start in loc, "-partN-of-M" when a format has parts, the
// first with e's caption in lang. It returns how many it sent.
func (e *Export) Send(lang string, loc *time.Location, send func(file, path, caption string) error) (documents int, err error) {
	t := texts.For(lang)
	name := "membot-conversation-" + e.Conversation.CreatedAt.In(loc).Format("2006-01-02-1504")
	for n, d := range e.Docs {
		for i, path := range d.Parts {
			file, caption := name, ""
			if len(d.Parts) > 1 {
				file += fmt.Sprintf("-part%d-of-%d", i+1, len(d.Parts))
				caption = t.ExportPart(i+1, len(d.Parts))
			}
			if n == 0 && i == 0 { // the Markdown's first part
				caption = strings.TrimSpace(t.ExportCaption(e.Messages) + "\n" + caption)
			}
			if err := send(file+"."+d.Ext, path, caption); err != nil {
				return documents, err
			}
			documents++
		}
	}
	return documents, nil
}

// Dialogue is /history's listing of a private chat's msgs
// (userdata.Store.Dialogue's): a line each, with its time in loc and a
// preview of its text, the author named in lang.
func Dialogue(msgs []memory.Message, lang string, loc *time.Location) string {
	return dialogue(msgs, lang, loc, false)
}

// GroupDialogue is Dialogue for a group, whose user rows name their
// author already.
func GroupDialogue(msgs []memory.Message, lang string, loc *time.Location) string {
	return dialogue(msgs, lang, loc, true)
}

func dialogue(msgs []memory.Message, lang string, loc *time.Location, group bool) string {
	t := texts.For(lang)
	lines := []string{t.HistoryHeader(len(msgs), loc.String()), ""}
	for _, m := range msgs {
		text := stamp.Strip(m.Content)
		if !group || m.Role != memory.RoleUser { // a group's rows start with their author already
			who := t.Bot
			if m.Role == memory.RoleUser {
				who = t.You
			}
			text = who + ": " + text
		}
		lines = append(lines, texts.Clock(m.WrittenAt, loc)+" "+texts.Preview(text, 200))
	}
	return strings.Join(lines, "\n")
}

// Events tells when a user may export again: at most perHour exports,
// /export's and the Mini App's together, in any hour
// (memory.Events.ExportAgain).
type Events interface {
	ExportAgain(ctx context.Context, userID int64, perHour int, now time.Time) (time.Time, error)
}
