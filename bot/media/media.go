// Package media is what a voice message, audio, a video note, a photo or
// a file a person sent becomes for the model: which file a message
// carries (Of), the bounds it is taken within (Config), and taking it
// (Taker: downloaded, a recording transcribed, an image checked, a
// document read) into the marked text the user's row keeps ("[voice 0:12]
// …", "[photo] caption", "[file name] …" with its text), or into what the
// user is told instead. bot answers it.
package media

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"path"
	"strings"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/internal/visible"
)

// Config is how the bot takes what people send besides text. Everything
// runs after bot's gate (bot/gate): nothing is downloaded for someone
// not allowed, or over their limits.
type Config struct {
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

// DefaultConfig is the settings' defaults.
func DefaultConfig() Config {
	return Config{Transcribe: true, ShowHeard: true, Vision: agent.VisionAuto,
		FileChars: DefaultFileChars, FileBytes: telegram.MaxDownloadBytes}
}

// DefaultFileChars is FILE_CHARS's default.
const DefaultFileChars = 20000

// MaxImageBytes bounds an image shown to the model: the largest photo
// size within it is taken (OpenAI takes images of up to 20 MB, and every
// image is sent again, base64, with each later turn within IMAGE_HISTORY).
const MaxImageBytes = 10 << 20

// maxTranscriptRunes bounds a transcript kept as the user's message.
const maxTranscriptRunes = 20000

// Of is the file a message carries that the bot reads: a voice
// message, audio, a video note, a photo (its largest size within
// MaxImageBytes) or a document.
func Of(msg *tgbotapi.Message) (agent.Attachment, bool) {
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
		case IsImageType(d.MimeType):
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

// IsImageType tells the image types vision models take.
func IsImageType(mimeType string) bool {
	switch strings.ToLower(mimeType) {
	case "image/jpeg", "image/png", "image/webp", "image/gif":
		return true
	}
	return false
}

// Label names a file for the model and the user: its name without a
// path, as texts.Label shows a name; "the file" when it has none.
func Label(att agent.Attachment) string {
	name := texts.Label(path.Base(strings.ReplaceAll(att.FileName, `\`, "/")), 100)
	if name == "" || name == "." || name == "/" {
		return "the file"
	}
	return name
}

// recordingName is how the marker names a recording.
func recordingName(kind string) string {
	switch kind {
	case agent.KindAudio:
		return "audio"
	case agent.KindVideoNote:
		return "video note"
	}
	return "voice"
}

// FirstLine is the first line of s, at most n runes, with "…" when cut.
func FirstLine(s string, n int) string {
	line, rest, more := strings.Cut(s, "\n")
	line, cut := visible.Runes(line, n)
	if cut || (more && strings.TrimSpace(rest) != "") {
		line += "…"
	}
	return line
}

// ImageFiles fetches the images of earlier rows again for the agent
// (agent.Files), from Telegram, within MaxImageBytes.
type ImageFiles struct{ Client *telegram.Client }

// Fetch downloads a file by its id.
func (f ImageFiles) Fetch(ctx context.Context, fileID string, size int64) ([]byte, error) {
	return f.Client.Download(ctx, fileID, size, MaxImageBytes)
}

// Transcript is a recording's transcript as the user's row keeps it:
// trimmed, and bounded.
func Transcript(text string) string {
	text, _ = visible.Runes(strings.TrimSpace(text), maxTranscriptRunes)
	return text
}

// Heard is the user's row of a recording: its marker ("[voice 0:12]"),
// what was said, then the caption.
func Heard(att agent.Attachment, transcript, caption string) string {
	marker := recordingName(att.Kind)
	if att.Duration > 0 {
		marker += " " + texts.Duration(att.Duration)
	}
	content := "[" + marker + "] " + transcript
	if caption != "" {
		content += "\n\n" + caption
	}
	return content
}

// Seen is the user's row of an image: "[photo]" (or "[image name]" for an
// image sent as a file), then the caption.
func Seen(att agent.Attachment, caption string) string {
	content := "[photo]"
	if att.Kind == agent.KindImage {
		content = "[image " + Label(att) + "]"
	}
	if caption != "" {
		content += " " + caption
	}
	return content
}

// Read is the user's row of a document: its marker and the caption, then
// its text between lines that name it, with a note the model (and whoever
// reads the row) sees when the text was cut, to cutAt characters (0: it
// is whole). The lines carry
// a random mark of this file ("--- notes.md #3f9a0c1d ---"), so text
// inside the file cannot end the frame early with a line of its own and
// write after it as if it were the user.
func Read(label, caption, text string, cutAt int) string {
	content := "[file " + label + "]"
	if caption != "" {
		content += " " + caption
	}
	frame := label + " #" + frameMark()
	content += "\n\n--- " + frame + " ---\n" + text
	if cutAt > 0 {
		content += fmt.Sprintf("\n[The file is cut here: only its first %d characters are shown.]", cutAt)
	}
	return content + "\n--- end of " + frame + " ---"
}

// frameMark is 8 random hex digits: a file's text cannot guess them.
func frameMark() string {
	var b [4]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}
