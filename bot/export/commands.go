package export

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/membot/membot/bot/command"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/userdata"
)

// Exports are streamed from the database to files on disk and uploaded
// from there, so a conversation of any length costs a bounded amount of
// memory; each document stays under Telegram's 50 MB upload limit.
const (
	// DefaultPartBytes is the largest document /export sends when
	// Commands.PartBytes is zero (EXPORT_PART_BYTES).
	DefaultPartBytes = 45 << 20
	// DefaultPerHour is how many exports a user gets in any hour when
	// Commands.PerHour is zero (EXPORTS_PER_HOUR). An export calls no
	// model, so DAILY_TOKEN_LIMIT does not see it; this bounds the disk,
	// CPU and upload it costs: at most this many times 2 × MaxParts
	// documents of PartBytes an hour.
	DefaultPerHour = 3
)

// /history's number of messages: by default, and at most.
const (
	historyDefault = 10
	historyMax     = 100
)

// Transcripts read a chat's current conversation back
// (userdata.Store's).
type Transcripts interface {
	Dialogue(ctx context.Context, chat memory.Chat, limit int) ([]memory.Message, error)
	WalkCurrentTranscript(ctx context.Context, chat memory.Chat, head func(c userdata.Conversation, rows int) error, each func(m *memory.Message) error) error
}

// Recorder keeps the events: each export sent, and when a user may
// export again.
type Recorder interface {
	Events
	AddEvents(ctx context.Context, events ...memory.Event) error
}

// Documents sends a file on disk to a chat as a document (telegram.Client).
type Documents interface {
	SendDocument(ctx context.Context, chat telegram.Chat, name, path, caption string) (int64, error)
}

// Clock is the bot's time and the zone it shows times in (access.Policy).
type Clock interface {
	Now() time.Time
	Zone() *time.Location
}

// Commands are /export and /history.
type Commands struct {
	Transcripts Transcripts
	Events      Recorder
	Documents   Documents
	Clock       Clock
	PartBytes   int64 // the largest document; DefaultPartBytes when zero
	PerHour     int   // exports a user gets in any hour; DefaultPerHour when zero
}

// Export sends the whole current conversation as documents: Markdown to
// read, and JSON with every column of every row, for machines; split into
// parts, and cut past MaxParts of them, when it is large. The bot's admins
// are not limited to PerHour.
func (x Commands) Export(ctx context.Context, c command.Call) error {
	t, loc := texts.For(c.Lang()), x.Clock.Zone()
	if !c.Admin {
		again, err := x.Events.ExportAgain(ctx, c.UserID(), x.perHour(), x.Clock.Now())
		if err != nil {
			return err
		}
		if !again.IsZero() {
			return c.Reply(ctx, t.ExportLimit(x.perHour(), texts.Clock(again, loc)))
		}
	}
	dir, err := os.MkdirTemp("", "membot-export-")
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	defer os.RemoveAll(dir)

	limit := x.PartBytes
	if limit <= 0 {
		limit = DefaultPartBytes
	}
	walk := func(head func(c userdata.Conversation, rows int) error, each func(m *memory.Message) error) error {
		return x.Transcripts.WalkCurrentTranscript(ctx, c.Chat, head, each)
	}
	e, err := Write(walk, dir, limit, c.Lang(), loc)
	if errors.Is(err, memory.ErrNotFound) || (err == nil && e.Total == 0) {
		return c.Reply(ctx, t.ExportEmpty)
	}
	if err != nil {
		return err
	}
	documents, err := e.Send(c.Lang(), loc, func(file, path, caption string) error {
		_, err := x.Documents.SendDocument(ctx, c.To(), file, path, caption)
		return err
	})
	if err != nil {
		return command.Told{Err: fmt.Errorf("send the export: %w", err), Text: t.ExportRefused}
	}
	sent := memory.Event{Type: memory.EventExportSent, UserID: c.UserID(), ChatID: c.Chat.ID,
		UpdateID: c.UpdateID, Payload: map[string]any{"documents": documents, "messages": e.Shown}}
	if err := x.Events.AddEvents(ctx, sent); err != nil {
		return err
	}
	if e.Shown < e.Total {
		return c.Reply(ctx, t.ExportCut(e.Shown, e.Total, MaxParts, texts.ByteSize(limit)))
	}
	return nil
}

func (x Commands) perHour() int {
	if x.PerHour <= 0 {
		return DefaultPerHour
	}
	return x.PerHour
}

// History shows the last N messages of the conversation (/history N;
// historyDefault without N), one line each, with their times in the bot's
// zone.
func (x Commands) History(ctx context.Context, c command.Call) error {
	t := texts.For(c.Lang())
	n := historyDefault
	if arg := strings.TrimSpace(c.Args); arg != "" {
		var err error
		if n, err = strconv.Atoi(arg); err != nil || n < 1 || n > historyMax {
			return c.Reply(ctx, t.HistoryUsage(historyMax))
		}
	}
	msgs, err := x.Transcripts.Dialogue(ctx, c.Chat, n)
	if err != nil {
		return err
	}
	if len(msgs) == 0 {
		return c.Reply(ctx, t.HistoryEmpty)
	}
	listing := Dialogue
	if !c.Private {
		listing = GroupDialogue
	}
	return c.Reply(ctx, listing(msgs, c.Lang(), x.Clock.Zone()))
}
