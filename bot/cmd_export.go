package bot

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

	"github.com/membot/membot/internal/stamp"
	"github.com/membot/membot/memory"
)

// ExportStore is what /export reads.
type ExportStore interface {
	WalkCurrentTranscript(ctx context.Context, chat memory.Chat, head func(c memory.Conversation, rows int) error, each func(m *memory.Message) error) error
}

// Exports are streamed from the database to files on disk and uploaded
// from there, so a conversation of any length costs a bounded amount of
// memory; each document stays under Telegram's 50 MB upload limit.
const (
	// DefaultExportPartBytes is the largest document /export sends when
	// Handler.ExportPartBytes is zero (EXPORT_PART_BYTES).
	DefaultExportPartBytes = 45 << 20
	// exportMaxParts is how many documents of each format one /export sends
	// at most; past them the export is cut, and says so.
	exportMaxParts = 4
)

// cmdExport sends the whole current conversation as documents: Markdown to
// read, and JSON with every column of every row, for machines; split into
// parts, and cut past exportMaxParts of them, when it is large.
func cmdExport(ctx context.Context, h *Handler, in *incoming) error {
	dir, err := os.MkdirTemp("", "membot-export-")
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	defer os.RemoveAll(dir)

	limit := h.ExportPartBytes
	if limit <= 0 {
		limit = DefaultExportPartBytes
	}
	lang, loc := in.lang(), h.Access.zone()
	var conv memory.Conversation
	var total, shown int
	var md, js *exportDoc
	err = h.Memory.WalkCurrentTranscript(ctx, in.conversation(),
		func(c memory.Conversation, rows int) error {
			conv, total = c, rows
			md = &exportDoc{dir: dir, ext: "md", limit: limit, begin: func(w io.Writer) { markdownHead(w, c, rows, loc) }}
			head, err := jsonHead(c)
			if err != nil {
				return err
			}
			js = &exportDoc{dir: dir, ext: "json", limit: limit, sep: ",\n",
				begin: func(w io.Writer) { w.Write(head) }, end: "\n  ]\n}\n"}
			return nil
		},
		func(m *memory.Message) error {
			mdEntry := markdownEntry(m, lang, loc)
			jsEntry, err := jsonEntry(m)
			if err != nil {
				return err
			}
			if !md.fits(len(mdEntry)) || !js.fits(len(jsEntry)) {
				return errExportFull
			}
			if err := md.add(mdEntry); err != nil {
				return err
			}
			shown++
			return js.add(jsEntry)
		})
	if errors.Is(err, memory.ErrNotFound) || (err == nil && total == 0) {
		return h.reply(ctx, in, tr(lang).ExportEmpty)
	}
	if err != nil && !errors.Is(err, errExportFull) {
		return err
	}
	if err := errors.Join(md.close(), js.close()); err != nil {
		return fmt.Errorf("export: %w", err)
	}

	name := "membot-conversation-" + conv.CreatedAt.In(loc).Format("2006-01-02-1504")
	for _, d := range []*exportDoc{md, js} {
		for i, path := range d.parts {
			file, caption := name, ""
			if len(d.parts) > 1 {
				file += fmt.Sprintf("-part%d-of-%d", i+1, len(d.parts))
				caption = tr(lang).ExportPart(i+1, len(d.parts))
			}
			if d == md && i == 0 {
				caption = strings.TrimSpace(tr(lang).ExportCaption(total) + "\n" + caption)
			}
			if _, err := h.Client.SendDocument(ctx, in.chat(), file+"."+d.ext, path, caption); err != nil {
				return err
			}
		}
	}
	if shown < total {
		return h.reply(ctx, in, tr(lang).ExportCut(shown, total, exportMaxParts, byteSize(limit)))
	}
	return nil
}

// byteSize writes a size for people: 45 MB, 64 KB.
func byteSize(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MB", n>>20)
	}
	return fmt.Sprintf("%d KB", n>>10)
}

// errExportFull stops the walk when the next message fits no document.
var errExportFull = errors.New("the export is as large as it may be")

// exportDoc is one format of an export: files on disk of at most limit
// bytes each (a part holds one message at least), a new one begun at a
// message boundary, at most exportMaxParts of them.
type exportDoc struct {
	dir, ext string
	limit    int64
	begin    func(w io.Writer) // writes what each part starts with
	sep      string            // between two messages of a part
	end      string            // what each part ends with

	parts   []string // the files written, in order
	f       *os.File
	w       *bufio.Writer
	size    int64 // of the current part
	entries int   // in the current part
}

// fits reports whether an entry of n bytes goes into the current part or,
// when that is full, into a new one.
func (d *exportDoc) fits(n int) bool {
	return d.f != nil && (d.entries == 0 || d.size+int64(len(d.sep)+n+len(d.end)) <= d.limit) ||
		len(d.parts) < exportMaxParts
}

// add writes an entry that fits, starting a new part when it must.
func (d *exportDoc) add(entry []byte) error {
	if d.f == nil || (d.entries > 0 && d.size+int64(len(d.sep)+len(entry)+len(d.end)) > d.limit) {
		if err := d.close(); err != nil {
			return err
		}
		f, err := os.Create(filepath.Join(d.dir, fmt.Sprintf("%s-%d", d.ext, len(d.parts)+1)))
		if err != nil {
			return err
		}
		d.parts = append(d.parts, f.Name())
		d.f, d.w, d.size, d.entries = f, bufio.NewWriter(f), 0, 0
		d.write([]byte(nil), d.begin)
	}
	if d.entries > 0 {
		d.write([]byte(d.sep), nil)
	}
	d.write(entry, nil)
	d.entries++
	return nil
}

// write adds b, or what fn writes, to the current part, counting its size.
func (d *exportDoc) write(b []byte, fn func(io.Writer)) {
	cw := &countingWriter{w: d.w}
	if fn != nil {
		fn(cw)
	} else {
		cw.Write(b)
	}
	d.size += cw.n
}

// close ends the current part, if one is open.
func (d *exportDoc) close() error {
	if d == nil || d.f == nil {
		return nil
	}
	d.w.WriteString(d.end)
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
func markdownHead(w io.Writer, c memory.Conversation, rows int, loc *time.Location) {
	fmt.Fprintf(w, "# membot conversation\n\n- id: %s\n- started: %s (%s)\n- mode: %s\n- messages: %d\n",
		c.ID, localClock(c.CreatedAt, loc), loc, c.Mode, rows)
}

// markdownEntry writes one row for people to read.
func markdownEntry(m *memory.Message, lang string, loc *time.Location) []byte {
	var b strings.Builder
	at := localClock(m.CreatedAt, loc)
	switch {
	case m.Role == memory.RoleUser:
		fmt.Fprintf(&b, "\n## %s · %s\n\n%s\n", tr(lang).You, at, stamp.Strip(m.Content))
	case m.Role == memory.RoleAssistant && len(m.ToolCalls) > 0:
		fmt.Fprintf(&b, "\n## %s · %s · tool calls\n\n", tr(lang).Bot, at)
		if m.Content != "" {
			fmt.Fprintf(&b, "%s\n\n", m.Content)
		}
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, "`%s`\n%s\n", c.Name, fence(c.Arguments, "json"))
		}
	case m.Role == memory.RoleAssistant:
		fmt.Fprintf(&b, "\n## %s · %s\n\n%s\n", tr(lang).Bot, at, m.Content)
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
}

// jsonHead starts each JSON part: the conversation, then its messages.
func jsonHead(c memory.Conversation) ([]byte, error) {
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
		TelegramMessageID: nullable(m.TelegramMessageID), UpdateID: nullable(m.UpdateID), Metadata: m.Metadata, CreatedAt: m.CreatedAt},
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
