package bot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/membot/membot/bot/export"
	"github.com/membot/membot/bot/texts"
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
)

// cmdExport sends the whole current conversation as documents: Markdown to
// read, and JSON with every column of every row, for machines; split into
// parts, and cut past export.MaxParts of them, when it is large.
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
	var md, js *export.Doc
	err = h.Memory.WalkCurrentTranscript(ctx, in.conversation(),
		func(c memory.Conversation, rows int) error {
			conv, total = c, rows
			md = &export.Doc{Dir: dir, Ext: "md", Limit: limit, Begin: func(w io.Writer) { export.MarkdownHead(w, c, rows, loc) }}
			head, err := export.JSONHead(c)
			if err != nil {
				return err
			}
			js = &export.Doc{Dir: dir, Ext: "json", Limit: limit, Sep: ",\n",
				Begin: func(w io.Writer) { w.Write(head) }, End: "\n  ]\n}\n"}
			return nil
		},
		func(m *memory.Message) error {
			mdEntry := export.MarkdownEntry(m, lang, loc)
			jsEntry, err := export.JSONEntry(m)
			if err != nil {
				return err
			}
			if !md.Fits(len(mdEntry)) || !js.Fits(len(jsEntry)) {
				return export.ErrFull
			}
			if err := md.Add(mdEntry); err != nil {
				return err
			}
			shown++
			return js.Add(jsEntry)
		})
	if errors.Is(err, memory.ErrNotFound) || (err == nil && total == 0) {
		return h.reply(ctx, in, tr(lang).ExportEmpty)
	}
	if err != nil && !errors.Is(err, export.ErrFull) {
		return err
	}
	if err := errors.Join(md.Close(), js.Close()); err != nil {
		return fmt.Errorf("export: %w", err)
	}

	name := "membot-conversation-" + conv.CreatedAt.In(loc).Format("2006-01-02-1504")
	for _, d := range []*export.Doc{md, js} {
		for i, path := range d.Parts {
			file, caption := name, ""
			if len(d.Parts) > 1 {
				file += fmt.Sprintf("-part%d-of-%d", i+1, len(d.Parts))
				caption = tr(lang).ExportPart(i+1, len(d.Parts))
			}
			if d == md && i == 0 {
				caption = strings.TrimSpace(tr(lang).ExportCaption(total) + "\n" + caption)
			}
			if _, err := h.Client.SendDocument(ctx, in.chat(), file+"."+d.Ext, path, caption); err != nil {
				return err
			}
		}
	}
	if shown < total {
		return h.reply(ctx, in, tr(lang).ExportCut(shown, total, export.MaxParts, texts.ByteSize(limit)))
	}
	return nil
}
