package bot

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/membot/membot/bot/export"
	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/userdata"
)

// Exports are streamed from the database to files on disk and uploaded
// from there, so a conversation of any length costs a bounded amount of
// memory; each document stays under Telegram's 50 MB upload limit.
const (
	// DefaultExportPartBytes is the largest document /export sends when
	// Handler.ExportPartBytes is zero (EXPORT_PART_BYTES).
	DefaultExportPartBytes = 45 << 20
	// DefaultExportsPerHour is how many exports a user gets in any hour
	// when Handler.ExportsPerHour is zero (EXPORTS_PER_HOUR). An export
	// calls no model, so DAILY_TOKEN_LIMIT does not see it; this bounds
	// the disk, CPU and upload it costs: at most this many times
	// 2 × export.MaxParts documents of ExportPartBytes an hour.
	DefaultExportsPerHour = 3
)

// cmdExport sends the whole current conversation as documents: Markdown to
// read, and JSON with every column of every row, for machines; split into
// parts, and cut past export.MaxParts of them, when it is large.
func cmdExport(ctx context.Context, h *Handler, in *incoming) error {
	if again, err := h.exportLimited(ctx, in); err != nil || !again.IsZero() {
		if err != nil {
			return err
		}
		return h.reply(ctx, in, tr(in.lang()).ExportLimit(h.exportsPerHour(), h.clock(again)))
	}
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
	walk := func(head func(c userdata.Conversation, rows int) error, each func(m *memory.Message) error) error {
		return h.Stores.Transcripts.WalkCurrentTranscript(ctx, in.conversation(), head, each)
	}
	e, err := export.Write(walk, dir, limit, lang, loc)
	if errors.Is(err, memory.ErrNotFound) || (err == nil && e.Total == 0) {
		return h.reply(ctx, in, tr(lang).ExportEmpty)
	}
	if err != nil {
		return err
	}

	documents, err := e.Send(lang, loc, func(file, path, caption string) error {
		_, err := h.Client.SendDocument(ctx, in.chat(), file, path, caption)
		return err
	})
	if err != nil {
		return refusalTold{fmt.Errorf("send the export: %w", err), tr(lang).ExportRefused}
	}
	sent := memory.Event{Type: memory.EventExportSent, UserID: in.user.TelegramUserID, ChatID: in.msg.Chat.ID,
		UpdateID: in.update.UpdateID, Payload: map[string]any{"documents": documents, "messages": e.Shown}}
	if err := h.Stores.Events.AddEvents(ctx, sent); err != nil {
		return err
	}
	if e.Shown < e.Total {
		return h.reply(ctx, in, tr(lang).ExportCut(e.Shown, e.Total, export.MaxParts, texts.ByteSize(limit)))
	}
	return nil
}

func (h *Handler) exportsPerHour() int {
	if h.ExportsPerHour <= 0 {
		return DefaultExportsPerHour
	}
	return h.ExportsPerHour
}

// exportLimited tells when the user may export again, when they had
// ExportsPerHour exports in the last hour (zero when they may now). The
// bot's admins are not limited.
func (h *Handler) exportLimited(ctx context.Context, in *incoming) (again time.Time, err error) {
	if h.Access.IsAdmin(in.user.TelegramUserID) {
		return time.Time{}, nil
	}
	return h.Stores.Events.ExportAgain(ctx, in.user.TelegramUserID, h.exportsPerHour(), h.Access.Now())
}
