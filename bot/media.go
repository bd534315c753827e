package bot

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/membot/membot/agent"
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

// Media is how the bot takes what people send besides text. Everything
// here runs after the gate (access.go): nothing is downloaded for someone
// not allowed, or over their limits.
type Media struct {
	// Transcribe: a transcription model is set (TRANSCRIPTION_MODEL);
	// otherwise recordings get VoiceOff.
	Transcribe bool
	// ShowHeard: the transcript's first line is shown before the answer
	// (TRANSCRIPT_ECHO=quote), so a mishearing is obvious.
	ShowHeard bool
	// Vision is VISION: agent.VisionAuto, VisionOn or VisionOff.
	Vision string
	// FileChars bounds the text of a file the model gets (FILE_CHARS);
	// DefaultFileChars when 0.
	FileChars int
	// FileBytes bounds the files read (FILE_MAX_BYTES); Telegram's 20 MB when 0.
	FileBytes int64
	// AlbumWait is how long the last photo of an album that arrived so far
	// waits for more before the album is answered; 1.5 s when 0.
	AlbumWait time.Duration
}

// DefaultFileChars is FILE_CHARS's default.
const DefaultFileChars = 20000

// MaxImageBytes bounds an image shown to the model: the largest photo
// size within it is taken (OpenAI takes images of up to 20 MB, and every
// image is sent again, base64, with each later turn within IMAGE_HISTORY).
const MaxImageBytes = 10 << 20

// maxTranscriptRunes bounds a transcript kept as the user's message.
const maxTranscriptRunes = 20000

// attachmentOf is the file a message carries that the bot reads: a voice
// message, audio, a video note, a photo (its largest size within
// MaxImageBytes) or a document.
func attachmentOf(msg *tgbotapi.Message) (agent.Attachment, bool) {
	var a agent.Attachment
	switch {
	case msg.Voice != nil:
		v := msg.Voice
		a = agent.Attachment{Kind: agent.KindVoice, FileID: v.FileID, FileUniqueID: v.FileUniqueID, Duration: v.Duration,
			MimeType: v.MimeType, Size: int64(v.FileSize)}
	case msg.Audio != nil:
		v := msg.Audio
		a = agent.Attachment{Kind: agent.KindAudio, FileID: v.FileID, FileUniqueID: v.FileUniqueID, Duration: v.Duration,
			MimeType: v.MimeType, Size: int64(v.FileSize), FileName: v.FileName}
	case msg.VideoNote != nil:
		v := msg.VideoNote
		a = agent.Attachment{Kind: agent.KindVideoNote, FileID: v.FileID, FileUniqueID: v.FileUniqueID, Duration: v.Duration,
			MimeType: "video/mp4", Size: int64(v.FileSize)}
	case len(msg.Photo) > 0:
		p := largestPhoto(msg.Photo)
		a = agent.Attachment{Kind: agent.KindPhoto, FileID: p.FileID, FileUniqueID: p.FileUniqueID, Width: p.Width,
			Height: p.Height, MimeType: "image/jpeg", Size: int64(p.FileSize)}
	case msg.Document != nil:
		d := msg.Document
		a = agent.Attachment{Kind: agent.KindDocument, FileID: d.FileID, FileUniqueID: d.FileUniqueID, FileName: d.FileName,
			MimeType: d.MimeType, Size: int64(d.FileSize)}
		switch {
		case isImageType(d.MimeType):
			a.Kind = agent.KindImage
		case strings.HasPrefix(strings.ToLower(d.MimeType), "audio/"):
			a.Kind = agent.KindAudio // a recording sent as a file: heard like one
		}
	default:
		return a, false
	}
	a.Album = msg.MediaGroupID
	a.Duration = min(max(a.Duration, 0), 24*3600) // as the update says: bounded for the marker
	return a, a.FileID != ""
}

// largestPhoto is the largest size of a photo within MaxImageBytes (a size
// of unknown bytes counts as within), or the smallest when none is.
func largestPhoto(sizes []tgbotapi.PhotoSize) tgbotapi.PhotoSize {
	best, found := sizes[0], false
	for _, p := range sizes {
		switch {
		case int64(p.FileSize) > MaxImageBytes:
			if !found && p.Width*p.Height < best.Width*best.Height {
				best = p
			}
		case !found || p.Width*p.Height > best.Width*best.Height:
			best, found = p, true
		}
	}
	return best
}

// isImageType tells the image types vision models take.
func isImageType(mimeType string) bool {
	switch strings.ToLower(mimeType) {
	case "image/jpeg", "image/png", "image/webp", "image/gif":
		return true
	}
	return false
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
	text, _ = cutRunes(strings.TrimSpace(text), maxTranscriptRunes)
	if h.Media.ShowHeard {
		if _, err := h.send(ctx, in, t.Heard(firstLine(text, 200))); err != nil {
			return nil, err
		}
	}
	marker := recordingName(att.Kind)
	if att.Duration > 0 {
		marker += fmt.Sprintf(" %d:%02d", att.Duration/60, att.Duration%60)
	}
	content := "[" + marker + "] " + text
	if caption := strings.TrimSpace(in.route.text); caption != "" {
		content += "\n\n" + caption
	}
	return h.answerWith(ctx, in, content, att)
}

func recordingName(kind string) string {
	switch kind {
	case agent.KindAudio:
		return "audio"
	case agent.KindVideoNote:
		return "video note"
	}
	return "voice"
}

// see shows the model an image with its caption. The photos of an album
// arrive as separate updates: each but the last is stored without an
// answer, and the last one's turn shows them all (agent.Agent.images).
func (h *Handler) see(ctx context.Context, in *incoming, att agent.Attachment) (*memory.Delivery, error) {
	caption := strings.TrimSpace(in.route.text)
	content := "[photo]"
	if att.Kind == agent.KindImage {
		content = "[image " + fileLabel(att) + "]"
	}
	if caption != "" {
		content += " " + caption
	}
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
	if ok, err := h.download(ctx, in, &att, MaxImageBytes); !ok {
		return nil, err
	}
	if !isImageType(http.DetectContentType(att.Data)) && att.Kind == agent.KindImage {
		// A file that says it is an image and is not: the model server would refuse the turn.
		return nil, h.reply(ctx, in, tr(in.lang()).FileUnreadable(fileLabel(att)))
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
	label := fileLabel(att)
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
		maxChars = DefaultFileChars
	}
	text, cut, err := filetext.Read(kind, att.Data, maxChars)
	att.Data = nil
	switch {
	case errors.Is(err, filetext.ErrNotText):
		return nil, h.reply(ctx, in, t.UnsupportedFile(label))
	case err != nil:
		h.Log.Info("a file could not be read", "chat_id", in.msg.Chat.ID, "file", label, "err", err)
		return nil, h.reply(ctx, in, t.FileUnreadable(label))
	case strings.TrimSpace(text) == "":
		return nil, h.reply(ctx, in, t.NoTextInFile(label))
	}
	content := "[file " + label + "]"
	if caption := strings.TrimSpace(in.route.text); caption != "" {
		content += " " + caption
	}
	content += "\n\n--- " + label + " ---\n" + text
	if cut {
		content += fmt.Sprintf("\n[The file is cut here: only its first %d characters are shown.]", maxChars)
	}
	content += "\n--- end of " + label + " ---"
	return h.answerWith(ctx, in, content, att)
}

// fileLabel names a file for the model and the user: its name, without
// line breaks or a path, bounded; "the file" when it has none.
func fileLabel(att agent.Attachment) string {
	name := strings.Join(strings.Fields(path.Base(strings.ReplaceAll(att.FileName, `\`, "/"))), " ")
	name, _ = cutRunes(name, 100)
	if name == "" || name == "." || name == "/" {
		return "the file"
	}
	return name
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
		return false, h.reply(ctx, in, tr(in.lang()).FileUnreadable(fileLabel(*att)))
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

// firstLine is the first line of s, at most n runes, with "…" when cut.
func firstLine(s string, n int) string {
	line, rest, more := strings.Cut(s, "\n")
	line, cut := cutRunes(line, n)
	if cut || (more && strings.TrimSpace(rest) != "") {
		line += "…"
	}
	return line
}

// cutRunes is s cut to at most n runes, and whether it was cut.
func cutRunes(s string, n int) (string, bool) {
	if utf8.RuneCountInString(s) <= n {
		return s, false
	}
	return string([]rune(s)[:n]), true
}

// ImageFiles fetches the images of earlier rows again for the agent
// (agent.Files), from Telegram, within MaxImageBytes.
type ImageFiles struct{ Client *telegram.Client }

// Fetch downloads a file by its id.
func (f ImageFiles) Fetch(ctx context.Context, fileID string, size int64) ([]byte, error) {
	return f.Client.Download(ctx, fileID, size, MaxImageBytes)
}
