package agent

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/membot/membot/agent/llm"
	"github.com/membot/membot/agent/request"
	"github.com/membot/membot/internal/audiolength"
	"github.com/membot/membot/memory"
)

// Attachment is a file a message came with, as the bot received it. The
// agent stores what names it (kind, Telegram ids, size, duration, type) in
// the user row's metadata under "media", never its bytes: Data is for this
// turn only (an image's bytes, sent to the model).
type Attachment struct {
	Kind         string `json:"kind"` // KindVoice, KindPhoto, ...
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id,omitempty"`
	FileName     string `json:"file_name,omitempty"`
	MimeType     string `json:"mime_type,omitempty"`
	Size         int64  `json:"file_size,omitempty"`
	Duration     int    `json:"duration,omitempty"` // seconds, of a recording
	Width        int    `json:"width,omitempty"`
	Height       int    `json:"height,omitempty"`
	// Album is the media group (an album sent at once) it came in.
	Album string `json:"media_group_id,omitempty"`
	Data  []byte `json:"-"`
}

// Kinds of attachments.
const (
	KindVoice     = "voice"
	KindAudio     = "audio"
	KindVideoNote = "video_note"
	KindPhoto     = "photo"
	KindImage     = "image" // an image sent as a file
	KindDocument  = "document"
)

// IsImage tells whether the model may be shown the attachment as an image.
func (a Attachment) IsImage() bool { return a.Kind == KindPhoto || a.Kind == KindImage }

// Files fetches the bytes of a file a stored row names, so that the images
// of recent rows are shown to the model again on later turns. The bot
// implements it (with Telegram's getFile); nil: older images appear only
// as their marker.
type Files interface {
	Fetch(ctx context.Context, fileID string, size int64) ([]byte, error)
}

// Transcriber turns speech into text (/audio/transcriptions); *llm.Client is one.
type Transcriber interface {
	Transcribe(ctx context.Context, model, fileName, mimeType string, audio []byte) (*llm.Transcription, error)
}

// Vision says whether images are sent to the model (VISION).
const (
	VisionAuto = "auto" // sent; a refusal is learned per model and the images become a note
	VisionOn   = "on"   // sent; a refusal is an error (the server is known to see)
	VisionOff  = "off"  // never sent: the model gets the marker and a note
)

// maxImagesPerRequest bounds the images of one request, whatever
// IMAGE_HISTORY and albums add up to.
const maxImagesPerRequest = 10

// mediaMeta is what a user row's metadata keeps of its attachments.
func mediaMeta(atts []Attachment) map[string]any {
	if len(atts) == 0 {
		return nil
	}
	// Through JSON, so that the row keeps what Attachment's tags say.
	data, _ := json.Marshal(atts)
	var list []any
	_ = json.Unmarshal(data, &list)
	return map[string]any{"media": list}
}

// rowMeta is what the metadata of req's user row keeps besides its author:
// its files, whether it was forwarded or sent via an inline bot, and the
// task it is a run of.
func rowMeta(req Request) map[string]any {
	meta := mediaMeta(req.Attachments)
	if req.Forwarded || req.ViaBot != "" || req.Scheduled != nil {
		if meta == nil {
			meta = map[string]any{}
		}
	}
	if req.Forwarded {
		meta[metaForwarded] = true
	}
	if req.ViaBot != "" {
		meta[metaViaBot] = Truncate(req.ViaBot, maxSourceName)
	}
	if r := req.Scheduled; r != nil {
		run := map[string]any{"task_id": r.TaskID, "due_at": r.DueAt.UTC().Format(time.RFC3339)}
		if r.Late {
			run["late"] = true
		}
		meta["scheduled"] = run
	}
	return meta
}

// decodeMedia reads a user row's metadata "media".
func decodeMedia(raw json.RawMessage) []Attachment {
	if len(raw) == 0 || raw[0] != '[' {
		return nil
	}
	var atts []Attachment
	if json.Unmarshal(raw, &atts) != nil {
		return nil
	}
	return atts
}

// seesImages tells whether model is to be sent images now.
func (a *Agent) seesImages(model string) bool {
	return a.cfg.Vision != VisionOff && !a.caps.get(model).NoImages
}

// images returns the image parts of the turn's requests, by user row id:
// the images of the newest ImageHistory user messages of the window (an
// album's rows count as one message), the turn's own from fresh (already
// downloaded), older ones fetched again with Files. An image that cannot be
// fetched any more (Telegram keeps files for a long time, not for ever)
// is left as its marker.
func (a *Agent) images(ctx context.Context, t *turnState, rows []memory.Message, fresh []Attachment) map[int64][]llm.Part {
	if !a.seesImages(t.model) {
		if hasImage(fresh) {
			t.notes = appendOnce(t.notes, noImagesNote(t.lang, t.model))
		}
		return nil
	}
	out := map[int64][]llm.Part{}
	count, messages, lastAlbum := 0, 0, ""
	for i := len(rows) - 1; i >= 0 && count < maxImagesPerRequest; i-- {
		r := rows[i]
		if r.Role != memory.RoleUser {
			continue
		}
		atts := decodeMedia(r.Media)
		if r.ID == t.info.UserMessageID && len(fresh) > 0 {
			atts = fresh
		}
		album := ""
		if len(atts) > 0 {
			album = atts[0].Album
		}
		if album == "" || album != lastAlbum {
			messages++
		}
		lastAlbum = album
		if messages > max(a.cfg.ImageHistory, 1) { // the turn's own message always shows its images
			break
		}
		for _, att := range atts {
			if !att.IsImage() || count >= maxImagesPerRequest {
				continue
			}
			data := att.Data
			if data == nil {
				var err error
				if data, err = a.fetchImage(ctx, att); err != nil {
					a.log.Warn("an earlier image could not be fetched again; the model gets its marker", "chat_id", t.info.Chat.ID,
						"message_id", r.ID, "err", err)
					continue
				}
			}
			out[r.ID] = append(out[r.ID], imagePart(att, data))
			count++
		}
	}
	return out
}

func (a *Agent) fetchImage(ctx context.Context, att Attachment) ([]byte, error) {
	if a.parts.Files == nil {
		return nil, fmt.Errorf("no way to fetch files")
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	return a.parts.Files.Fetch(ctx, att.FileID, att.Size)
}

func hasImage(atts []Attachment) bool {
	for _, att := range atts {
		if att.IsImage() {
			return true
		}
	}
	return false
}

// imagePart is an image as OpenAI's vision format takes it: a data URL.
func imagePart(att Attachment, data []byte) llm.Part {
	mimeType := att.MimeType
	if !strings.HasPrefix(mimeType, "image/") {
		mimeType = http.DetectContentType(data)
	}
	if att.Kind == KindPhoto || !strings.HasPrefix(mimeType, "image/") {
		mimeType = "image/jpeg" // Telegram's photos are JPEG
	}
	return llm.Part{Type: "image_url", ImageURL: &llm.ImageURL{URL: "data:" + mimeType + ";base64," + base64.StdEncoding.EncodeToString(data)}}
}

// TranscribeRequest is a recording to turn into the user's message.
type TranscribeRequest struct {
	User     memory.User
	ChatID   int64
	UpdateID int64
	Audio    Attachment // with its Data
}

// ErrNoTranscription is returned when no transcription model is set.
var ErrNoTranscription = fmt.Errorf("transcription is off (TRANSCRIPTION_MODEL is empty)")

// Transcribe turns a recording into text, and records the call in
// llm_calls (purpose "transcription"), so that it counts against the
// user's daily tokens and admins can sum it: the seconds heard are what
// the bytes sent last, or what the server says when it says more, and
// they count TokensPerAudioSecond each (or the server's input tokens when
// more); the text is the server's output tokens, or estimated.
func (a *Agent) Transcribe(ctx context.Context, req TranscribeRequest) (string, error) {
	if a.parts.Transcriber == nil || a.cfg.TranscriptionModel == "" {
		return "", ErrNoTranscription
	}
	model := a.cfg.TranscriptionModel
	// Counted by the recording sent, never by the length its message
	// claims: until the server says, what the bytes last (audiolength).
	seconds, _ := audiolength.Seconds(req.Audio.Data)
	call := memory.LLMCall{UserID: req.User.TelegramUserID, ChatID: req.ChatID, UpdateID: req.UpdateID, Model: model,
		Purpose: memory.PurposeTranscription, AudioSeconds: seconds, PromptTokens: AudioTokens(seconds), UsageEstimated: true}
	var out *llm.Transcription
	err := a.audioCall(ctx, &call, func(ctx context.Context) (err error) {
		out, err = a.parts.Transcriber.Transcribe(ctx, model, audioFileName(req.Audio), req.Audio.MimeType, req.Audio.Data)
		if err != nil {
			return err
		}
		call.AudioSeconds = max(seconds, out.Seconds)
		call.PromptTokens = max(out.InputTokens, AudioTokens(call.AudioSeconds))
		call.CompletionTokens, call.UsageEstimated = out.OutputTokens, out.InputTokens == 0 && out.OutputTokens == 0
		if call.UsageEstimated {
			call.CompletionTokens = request.EstimateTokens(out.Text)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return out.Text, nil
}

// audioCall makes a call of an audio endpoint with the retries of model
// calls, and records it in llm_calls whatever came of it (do fills in the
// usage), so that it counts against the user's daily tokens.
func (a *Agent) audioCall(ctx context.Context, call *memory.LLMCall, do func(ctx context.Context) error) error {
	call.Status = "ok"
	start := time.Now()
	err := a.withRetry(ctx, call.Model, do)
	call.Latency = time.Since(start)
	if err != nil {
		call.Status, call.Error = callStatus(err), Truncate(err.Error(), 2000)
	}
	if ctx.Err() == nil { // shutting down: the update is handled again, nothing happened for good
		if _, saveErr := a.store.SaveStep(ctx, "", memory.Step{LLMCalls: []memory.LLMCall{*call}}); saveErr != nil && err == nil {
			return saveErr
		}
	}
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrModel, call.Purpose, err)
	}
	return nil
}

// audioFileName names a recording for the server, which tells the format
// by the extension: Telegram's voice messages are OGG/Opus, video notes MP4.
func audioFileName(att Attachment) string {
	if att.FileName != "" {
		return att.FileName
	}
	switch att.Kind {
	case KindVideoNote:
		return "video_note.mp4"
	case KindAudio:
		if strings.Contains(att.MimeType, "mpeg") {
			return "audio.mp3"
		}
		return "audio.ogg"
	}
	return "voice.ogg"
}

// Speaker turns text into speech (/audio/speech); *llm.Client is one.
type Speaker interface {
	Speak(ctx context.Context, model, voice, text string) ([]byte, error)
}

// SpeakRequest is an answer to say aloud.
type SpeakRequest struct {
	UserID   int64
	ChatID   int64
	UpdateID int64
	Text     string
}

// maxSpokenRunes bounds what is spoken of an answer (OpenAI's speech
// endpoint takes 4,096 characters).
const maxSpokenRunes = 4000

// CanSpeak tells whether answers can be spoken (TTS_MODEL is set).
func (a *Agent) CanSpeak() bool { return a.parts.Speaker != nil && a.cfg.TTSModel != "" }

// Speak says an answer aloud and returns the audio, OGG/Opus. The call is
// recorded in llm_calls (purpose "speech", TokensPer1000SpeechChars for
// the characters said), so it counts against the user's daily tokens.
func (a *Agent) Speak(ctx context.Context, req SpeakRequest) ([]byte, error) {
	if !a.CanSpeak() {
		return nil, fmt.Errorf("speech is off (TTS_MODEL is empty)")
	}
	text := []rune(req.Text)
	if len(text) > maxSpokenRunes {
		text = text[:maxSpokenRunes]
	}
	call := memory.LLMCall{UserID: req.UserID, ChatID: req.ChatID, UpdateID: req.UpdateID, Model: a.cfg.TTSModel,
		Purpose: memory.PurposeSpeech, PromptTokens: speechTokens(len(text)), UsageEstimated: true}
	var audio []byte
	err := a.audioCall(ctx, &call, func(ctx context.Context) (err error) {
		audio, err = a.parts.Speaker.Speak(ctx, a.cfg.TTSModel, a.cfg.TTSVoice, string(text))
		return err
	})
	return audio, err
}
