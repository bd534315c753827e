package bot

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/bot/media"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/internal/backoff"
	"github.com/membot/membot/internal/filetext"
	"github.com/membot/membot/memory"
)

// MediaStore is what taking media needs of memory: the arrival of a
// message, and whether a later photo of its album is waiting.
type MediaStore interface {
	Arrived(ctx context.Context, u memory.User, e memory.Event) error
	LaterInAlbum(ctx context.Context, chatID, updateID int64, album string) (bool, error)
}

// media handles a message with a file: a recording is heard, an image
// seen, a document read.
func (h *Handler) media(ctx context.Context, in *incoming) (*memory.Delivery, error) {
	att := in.route.media
	// Counted against the rate limit before anything is fetched, whatever
	// comes of it (the turn's own record of it is then a no-op).
	arrived := memory.Event{Type: memory.EventMessageReceived, UserID: in.user.TelegramUserID, ChatID: in.msg.Chat.ID,
		UpdateID: in.update.UpdateID, Payload: map[string]any{"kind": att.Kind}}
	if err := h.Memory.Arrived(ctx, in.user, arrived); err != nil {
		return nil, err
	}
	switch att.Kind {
	case agent.KindVoice, agent.KindAudio, agent.KindVideoNote:
		return h.hear(ctx, in, att)
	case agent.KindPhoto, agent.KindImage:
		return h.see(ctx, in, att)
	}
	return h.read(ctx, in, att)
}

// hear transcribes a recording and answers what was said, as if written.
func (h *Handler) hear(ctx context.Context, in *incoming, att agent.Attachment) (*memory.Delivery, error) {
	t := tr(in.lang())
	if !h.Media.Transcribe {
		return nil, h.reply(ctx, in, t.VoiceOff)
	}
	if ok, err := h.download(ctx, in, &att, telegram.MaxDownloadBytes); !ok {
		return nil, err
	}
	text, err := h.Agent.Transcribe(ctx, agent.TranscribeRequest{User: in.user, ChatID: in.msg.Chat.ID,
		UpdateID: in.update.UpdateID, Audio: att})
	att.Data = nil
	switch {
	case err != nil && (Transient(err) || ctx.Err() != nil):
		return nil, err
	case err != nil:
		if sendErr := h.reply(ctx, in, t.TranscriptionFailed); sendErr != nil {
			return nil, sendErr
		}
		return nil, fmt.Errorf("transcription failed (the user was told): %w", err)
	case strings.TrimSpace(text) == "":
		return nil, h.reply(ctx, in, t.HeardNothing)
	}
	text = media.Transcript(text)
	if h.Media.ShowHeard {
		if _, err := h.send(ctx, in, t.Heard(media.FirstLine(text, 200))); err != nil {
			return nil, err
		}
	}
	return h.answerWith(ctx, in, media.Heard(att, text, strings.TrimSpace(in.route.text)), att)
}

// see shows the model an image with its caption. The photos of an album
// arrive as separate updates: each but the last is stored without an
// answer, and the last one's turn shows them all (agent.Agent.images).
func (h *Handler) see(ctx context.Context, in *incoming, att agent.Attachment) (*memory.Delivery, error) {
	caption := strings.TrimSpace(in.route.text)
	content := media.Seen(att, caption)
	if h.Media.Vision == agent.VisionOff {
		if caption == "" {
			return nil, h.reply(ctx, in, tr(in.lang()).VisionOff)
		}
		return h.answerWith(ctx, in, content, att) // the model is told it cannot see it
	}
	if att.Album != "" {
		later, err := h.albumGoesOn(ctx, in, att.Album)
		if err != nil {
			return nil, err
		}
		if later {
			in.attachments, in.kind = []agent.Attachment{att}, att.Kind
			return nil, h.Agent.Keep(ctx, h.request(in, in.route.author+content))
		}
	}
	if ok, err := h.download(ctx, in, &att, media.MaxImageBytes); !ok {
		return nil, err
	}
	if !media.IsImageType(http.DetectContentType(att.Data)) && att.Kind == agent.KindImage {
		// A file that says it is an image and is not: the model server would refuse the turn.
		return nil, h.reply(ctx, in, tr(in.lang()).FileUnreadable(media.Label(att)))
	}
	return h.answerWith(ctx, in, content, att)
}

// albumGoesOn tells whether more of the album is on its way: a later
// update of it is in the inbox now, or arrives within AlbumWait.
func (h *Handler) albumGoesOn(ctx context.Context, in *incoming, album string) (bool, error) {
	later, err := h.Memory.LaterInAlbum(ctx, in.msg.Chat.ID, in.update.UpdateID, album)
	if err != nil || later {
		return later, err
	}
	wait := h.Media.AlbumWait
	if wait <= 0 {
		wait = 1500 * time.Millisecond
	}
	if !backoff.Sleep(ctx, wait) {
		return false, ctx.Err()
	}
	return h.Memory.LaterInAlbum(ctx, in.msg.Chat.ID, in.update.UpdateID, album)
}

// read gives the model a document's text with its name, cut past
// FileChars with a note the model (and whoever reads the row) sees.
func (h *Handler) read(ctx context.Context, in *incoming, att agent.Attachment) (*memory.Delivery, error) {
	t := tr(in.lang())
	label := media.Label(att)
	kind := filetext.KindOf(att.FileName, att.MimeType)
	if kind == "" {
		return nil, h.reply(ctx, in, t.UnsupportedFile(label))
	}
	limit := h.Media.FileBytes
	if limit <= 0 || limit > telegram.MaxDownloadBytes {
		limit = telegram.MaxDownloadBytes
	}
	if ok, err := h.download(ctx, in, &att, limit); !ok {
		return nil, err
	}
	maxChars := h.Media.FileChars
	if maxChars <= 0 {
		maxChars = media.DefaultFileChars
	}
	text, cut, err := h.Files.Read(ctx, in.user.TelegramUserID, kind, att.Data, maxChars)
	att.Data = nil
	switch {
	case errors.Is(err, filetext.ErrNotText):
		return nil, h.reply(ctx, in, t.UnsupportedFile(label))
	case errors.Is(err, filetext.ErrTooHeavy):
		h.Log.Warn("a file's parse was stopped by its limits", "chat_id", in.msg.Chat.ID, "user_id", in.user.TelegramUserID,
			"file", label, "err", err)
		return nil, h.reply(ctx, in, t.FileTooHeavy(label))
	case errors.Is(err, filetext.ErrBusy):
		return nil, h.reply(ctx, in, t.FileBusy(label))
	case err != nil && ctx.Err() != nil:
		return nil, err // shutting down: the update is handled again after the restart
	case err != nil:
		h.Log.Info("a file could not be read", "chat_id", in.msg.Chat.ID, "file", label, "err", err)
		return nil, h.reply(ctx, in, t.FileUnreadable(label))
	case strings.TrimSpace(text) == "":
		return nil, h.reply(ctx, in, t.NoTextInFile(label))
	}
	return h.answerWith(ctx, in, media.Read(label, strings.TrimSpace(in.route.text), text, cut, maxChars), att)
}

// download fetches a file of the message into att.Data, at most limit
// bytes. When ok is false the user has been told why (too big, gone), or
// err says why not (Telegram unreachable: the update is handled again later).
func (h *Handler) download(ctx context.Context, in *incoming, att *agent.Attachment, limit int64) (ok bool, err error) {
	data, err := h.Client.Download(ctx, att.FileID, att.Size, limit)
	switch {
	case errors.Is(err, telegram.ErrFileTooBig):
		h.Log.Info("a file too big to download", "chat_id", in.msg.Chat.ID, "kind", att.Kind, "size", att.Size)
		return false, h.reply(ctx, in, tr(in.lang()).FileTooBig(texts.ByteSize(limit)))
	case err != nil && telegram.IsPermanent(err):
		h.Log.Warn("Telegram refused a file's download", "chat_id", in.msg.Chat.ID, "kind", att.Kind, "err", err)
		return false, h.reply(ctx, in, tr(in.lang()).FileUnreadable(media.Label(*att)))
	case err != nil:
		return false, err
	}
	att.Data = data
	return true, nil
}

// answerWith answers content as the user's message, with its files named
// in the row's metadata (an image's bytes go to the model, not the row).
func (h *Handler) answerWith(ctx context.Context, in *incoming, content string, att agent.Attachment) (*memory.Delivery, error) {
	in.attachments, in.kind = []agent.Attachment{att}, att.Kind
	return h.converse(ctx, in, in.route.author+content)
}
