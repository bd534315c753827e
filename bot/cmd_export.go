package bot

import (
	"context"
	"errors"
	"fmt"
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
	lang, loc := in.lang(), h.Access.Zone()
	walk := func(head func(c memory.Conversation, rows int) error, each func(m *memory.Message) error) error {
		return h.Memory.WalkCurrentTranscript(ctx, in.conversation(), head, each)
	}
	e, err := export.Write(walk, dir, limit, lang, loc)
	if errors.Is(err, memory.ErrNotFound) || (err == nil && e.Total == 0) {
		return h.reply(ctx, in, tr(lang).ExportEmpty)
	}
	if err != nil {
		return err
	}

	name := "membot-conversation-" + e.Conversation.CreatedAt.In(loc).Format("2006-01-02-1504")
	for n, d := range e.Docs {
		for i, path := range d.Parts {
			file, caption := name, ""
			if len(d.Parts) > 1 {
				file += fmt.Sprintf("-part%d-of-%d", i+1, len(d.Parts))
				caption = tr(lang).ExportPart(i+1, len(d.Parts))
			}
			if n == 0 && i == 0 { // the Markdown's first part
				caption = strings.TrimSpace(tr(lang).ExportCaption(e.Total) + "\n" + caption)
			}
			if _, err := h.Client.SendDocument(ctx, in.chat(), file+"."+d.Ext, path, caption); err != nil {
				return err
			}
		}
	}
	if e.Shown < e.Total {
		return h.reply(ctx, in, tr(lang).ExportCut(e.Shown, e.Total, export.MaxParts, texts.ByteSize(limit)))
	}
	return nil
}
