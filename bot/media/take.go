package media

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/internal/audiolength"
	"github.com/membot/membot/internal/backoff"
	"github.com/membot/membot/internal/filetext"
	"github.com/membot/membot/memory"
)

// Transcriber turns a recording into text (agent.Agent).
type Transcriber interface {
	Transcribe(ctx context.Context, req agent.TranscribeRequest) (string, error)
}

// AlbumStore tells whether a later photo of an album is in the inbox
// (memory/queue.Store).
type AlbumStore interface {
	LaterInAlbum(ctx context.Context, chatID, updateID int64, album string) (bool, error)
}

// Taker takes the file of a message: a recording is heard, an image seen,
// a document read.
type Taker struct {
	Config
	Client *telegram.Client // downloads the files
	Agent  Transcriber
	Album  AlbumStore
	// Files reads the documents: a PDF in a parser process under its
	// limits, one at a time per user.
	Files *filetext.Reader
	Log   *slog.Logger
	// Transient tells whether a failure may pass (the update is then
	// handled again later, and the user is told nothing).
	Transient func(error) bool
	// TokensLeft, when set, tells how many tokens the sender has left today
	// (limited false: no limit): a recording that would count more is not
	// transcribed.
	TokensLeft func(ctx context.Context, userID, updateID int64) (left int64, limited bool, err error)
}

// Message is a message with a file, as the taker needs it.
type Message struct {
	User     memory.User
	ChatID   int64
	UpdateID int64
	Caption  string           // the text that came with the file
	File     agent.Attachment // media.Of's
}

// Taken is what a message's file came to: a text to tell the user
// instead of an answer (Tell), or the user's row to answer (Content, with
// File; Heard shown before the answer), or to store unanswered (Keep: an
// album's photo before its last, which the last one's turn shows).
type Taken struct {
	Tell    string
	Heard   string
	Content string
	File    agent.Attachment
	Keep    bool
}

// Take takes the file of m. An error with Tell set happened after the user
// was to be told (a transcription that failed for good).
func (t *Taker) Take(ctx context.Context, m Message) (Taken, error) {
	switch m.File.Kind {
	case agent.KindVoice, agent.KindAudio, agent.KindVideoNote:
		return t.hear(ctx, m, m.File)
	case agent.KindPhoto, agent.KindImage:
		return t.see(ctx, m, m.File)
	}
	return t.read(ctx, m, m.File)
}

// hear transcribes a recording, to be answered as if written.
func (t *Taker) hear(ctx context.Context, m Message, att agent.Attachment) (Taken, error) {
	tr := texts.For(m.User.LanguageCode)
	if !t.Transcribe {
		return Taken{Tell: tr.VoiceOff}, nil
	}
	if tell, err := t.download(ctx, m, &att, telegram.MaxDownloadBytes); tell != "" || err != nil {
		return Taken{Tell: tell}, err
	}
	// The marker and the row say how long the recording is as read from
	// the file, when it is longer than its message claims (what it costs
	// is counted by the file alone: agent.Agent.Transcribe).
	seconds, read := audiolength.Seconds(att.Data)
	if read {
		att.Duration = max(att.Duration, int(math.Ceil(seconds)))
	}
	if t.TokensLeft != nil {
		left, limited, err := t.TokensLeft(ctx, m.User.TelegramUserID, m.UpdateID)
		if err != nil {
			return Taken{}, err
		}
		if cost := int64(agent.AudioTokens(seconds)); limited && cost > left {
			return Taken{Tell: tr.VoiceOverBudget(texts.Duration(int(math.Ceil(seconds))), cost, max(left, 0))}, nil
		}
	}
	text, err := t.Agent.Transcribe(ctx, agent.TranscribeRequest{User: m.User, ChatID: m.ChatID,
		UpdateID: m.UpdateID, Audio: att})
	att.Data = nil
	switch {
	case err != nil && (t.Transient(err) || ctx.Err() != nil):
		return Taken{}, err
	case err != nil:
		return Taken{Tell: tr.TranscriptionFailed}, fmt.Errorf("transcription failed (the user was told): %w", err)
	case strings.TrimSpace(text) == "":
		return Taken{Tell: tr.HeardNothing}, nil
	}
	text = Transcript(text)
	taken := Taken{Content: Heard(att, text, strings.TrimSpace(m.Caption)), File: att}
	if t.ShowHeard {
		taken.Heard = tr.Heard(FirstLine(text, 200))
	}
	return taken, nil
}

// see shows the model an image with its caption. The photos of an album
// arrive as separate updates: each but the last is stored without an
// answer, and the last one's turn shows them all (agent.Agent.images).
func (t *Taker) see(ctx context.Context, m Message, att agent.Attachment) (Taken, error) {
	tr := texts.For(m.User.LanguageCode)
	caption := strings.TrimSpace(m.Caption)
	content := Seen(att, caption)
	if t.Vision == agent.VisionOff {
		if caption == "" {
			return Taken{Tell: tr.VisionOff}, nil
		}
		return Taken{Content: content, File: att}, nil // the model is told it cannot see it
	}
	if att.Album != "" {
		later, err := t.albumGoesOn(ctx, m, att.Album)
		if err != nil {
			return Taken{}, err
		}
		if later {
			return Taken{Content: content, File: att, Keep: true}, nil
		}
	}
	if tell, err := t.download(ctx, m, &att, MaxImageBytes); tell != "" || err != nil {
		return Taken{Tell: tell}, err
	}
	if !IsImageType(http.DetectContentType(att.Data)) && att.Kind == agent.KindImage {
		// A file that says it is an image and is not: the model server would refuse the turn.
		return Taken{Tell: tr.FileUnreadable(Label(att))}, nil
	}
	return Taken{Content: content, File: att}, nil
}

// albumGoesOn tells whether more of the album is on its way: a later
// update of it is in the inbox now, or arrives within AlbumWait.
func (t *Taker) albumGoesOn(ctx context.Context, m Message, album string) (bool, error) {
	later, err := t.Album.LaterInAlbum(ctx, m.ChatID, m.UpdateID, album)
	if err != nil || later {
		return later, err
	}
	wait := t.AlbumWait
	if wait <= 0 {
		wait = 1500 * time.Millisecond
	}
	if !backoff.Sleep(ctx, wait) {
		return false, ctx.Err()
	}
	return t.Album.LaterInAlbum(ctx, m.ChatID, m.UpdateID, album)
}

// read gives the model a document's text with its name, cut past
// FileChars with a note the model (and whoever reads the row) sees.
func (t *Taker) read(ctx context.Context, m Message, att agent.Attachment) (Taken, error) {
	tr := texts.For(m.User.LanguageCode)
	label := Label(att)
	kind := filetext.KindOf(att.FileName, att.MimeType)
	if kind == "" {
		return Taken{Tell: tr.UnsupportedFile(label)}, nil
	}
	limit := t.FileBytes
	if limit <= 0 || limit > telegram.MaxDownloadBytes {
		limit = telegram.MaxDownloadBytes
	}
	if tell, err := t.download(ctx, m, &att, limit); tell != "" || err != nil {
		return Taken{Tell: tell}, err
	}
	maxChars := t.FileChars
	if maxChars <= 0 {
		maxChars = DefaultFileChars
	}
	text, cut, err := t.Files.Read(ctx, m.User.TelegramUserID, kind, att.Data, maxChars)
	att.Data = nil
	switch {
	case errors.Is(err, filetext.ErrNotText):
		return Taken{Tell: tr.UnsupportedFile(label)}, nil
	case errors.Is(err, filetext.ErrTooHeavy):
		t.Log.Warn("a file's parse was stopped by its limits", "chat_id", m.ChatID, "user_id", m.User.TelegramUserID,
			"file", label, "err", err)
		return Taken{Tell: tr.FileTooHeavy(label)}, nil
	case errors.Is(err, filetext.ErrBusy):
		return Taken{Tell: tr.FileBusy(label)}, nil
	case err != nil && ctx.Err() != nil:
		return Taken{}, err // shutting down: the update is handled again after the restart
	case err != nil:
		t.Log.Info("a file could not be read", "chat_id", m.ChatID, "file", label, "err", err)
		return Taken{Tell: tr.FileUnreadable(label)}, nil
	case strings.TrimSpace(text) == "":
		return Taken{Tell: tr.NoTextInFile(label)}, nil
	}
	cutAt := 0
	if cut {
		cutAt = maxChars
	}
	return Taken{Content: Read(label, strings.TrimSpace(m.Caption), text, cutAt), File: att}, nil
}

// download fetches the file into att.Data, at most limit bytes. It says
// what to tell the user when the file cannot be had (too big, gone), or
// returns why not (Telegram unreachable: the update is handled again
// later).
func (t *Taker) download(ctx context.Context, m Message, att *agent.Attachment, limit int64) (tell string, err error) {
	data, err := t.Client.Download(ctx, att.FileID, att.Size, limit)
	switch {
	case errors.Is(err, telegram.ErrNotAsSaid):
		t.Log.Warn("a file larger than its message said; not used", "chat_id", m.ChatID, "kind", att.Kind, "size", att.Size)
		return texts.For(m.User.LanguageCode).FileUnreadable(Label(*att)), nil
	case errors.Is(err, telegram.ErrFileTooBig):
		t.Log.Info("a file too big to download", "chat_id", m.ChatID, "kind", att.Kind, "size", att.Size)
		return texts.For(m.User.LanguageCode).FileTooBig(texts.ByteSize(limit)), nil
	case err != nil && telegram.IsPermanent(err):
		t.Log.Warn("Telegram refused a file's download", "chat_id", m.ChatID, "kind", att.Kind, "err", err)
		return texts.For(m.User.LanguageCode).FileUnreadable(Label(*att)), nil
	case err != nil:
		return "", err
	}
	att.Data, att.Size = data, int64(len(data)) // the size as downloaded, not as said
	return "", nil
}
