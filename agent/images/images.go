// Package images draws pictures for a chat (IMAGE_MODEL): what /image and
// the generate_image tool share. A request is checked (its prompt, the
// user's tokens left today), drawn by the image server
// ({base URL}/images/generations, agent/llm), sent to the chat as a photo,
// and counted in llm_calls (purpose "image", Config.TokensPerImage tokens),
// so that it counts against DAILY_TOKEN_LIMIT as every model call does.
// The rows that keep a picture name it by its Telegram file ids (Meta),
// never its bytes, as the rows of the photos people send do.
package images

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/membot/membot/agent/llm"
	"github.com/membot/membot/internal/stamp"
	"github.com/membot/membot/memory"
)

// MaxPromptRunes bounds a prompt: DALL·E 3 takes 4,000 characters.
const MaxPromptRunes = 4000

// Config is the settings of pictures.
type Config struct {
	// Model draws them (IMAGE_MODEL); "" turns pictures off.
	Model string
	// TokensPerImage is what one picture counts against DAILY_TOKEN_LIMIT
	// (IMAGE_TOKENS): a picture is billed by the image, not by tokens.
	TokensPerImage int
	// Timeout bounds one generation, the download of a url answer included.
	Timeout time.Duration
	// Location is the zone of the stamp of /image's user row (TIMEZONE).
	Location *time.Location
}

// DefaultConfig is off; a picture counts 16,000 tokens, what a
// 1024×1024 picture of OpenAI's ($0.04) buys of a large chat model's input
// tokens ($2.50 a million), the measure agent/cost.go uses for audio.
func DefaultConfig() Config {
	return Config{TokensPerImage: 16000, Timeout: 3 * time.Minute}
}

// Generator draws a picture (*llm.Client is one).
type Generator interface {
	GenerateImage(ctx context.Context, model, prompt string) (*llm.Image, error)
}

// Sender sends a picture to a chat as a photo (the bot implements it with
// sendPhoto), replying to replyTo when not 0.
type Sender interface {
	SendPicture(ctx context.Context, chat memory.Chat, replyTo int64, data []byte) (Sent, error)
}

// Sent is a photo as Telegram keeps it: its message, and its largest size's file.
type Sent struct {
	MessageID    int64
	FileID       string
	FileUniqueID string
	Width        int
	Height       int
	Size         int64
}

// Store reserves, records and keeps the pictures (memory.Pictures).
type Store interface {
	ReservePicture(ctx context.Context, ask memory.PictureAsk) (memory.Reservation, error)
	FinishPicture(ctx context.Context, d memory.PictureDrawn) error
	PictureSent(ctx context.Context, callID int64) error
}

// Turns is the chat's conversation: where a picture is counted, and
// where /image's exchange is kept (memory.Store).
type Turns interface {
	CurrentConversation(ctx context.Context, chat memory.Chat, userID int64) (string, error)
	StartTurn(ctx context.Context, in memory.TurnStart) (*memory.Turn, error)
	SaveStep(ctx context.Context, conversationID string, st memory.Step) ([]int64, error)
}

// Budget tells the tokens userID may spend a day (DAILY_TOKEN_LIMIT) and
// when their day began; limit < 0 when nothing limits them (no limit, or
// an admin).
type Budget func(userID int64) (limit int64, dayStart time.Time)

// Painter draws pictures and sends them. Set every field but Budget (nil:
// no limit) and Now.
type Painter struct {
	Config
	Server Generator
	Sender Sender
	Store  Store
	Turns  Turns
	Budget Budget
	Now    func() time.Time
}

// Errors of a request that is not drawn.
var (
	ErrOff           = errors.New("pictures are off (IMAGE_MODEL is empty)")
	ErrNoPrompt      = errors.New("the prompt is empty")
	ErrPromptTooLong = fmt.Errorf("the prompt is longer than %d characters", MaxPromptRunes)
	ErrOverBudget    = errors.New("a picture would take the user past their daily tokens (DAILY_TOKEN_LIMIT)")
	// ErrDrawnBefore: the update drew as many pictures as it may
	// (Request.PerUpdate) already, before a restart among them.
	ErrDrawnBefore = errors.New("the pictures of this message were drawn already")
	// ErrFailed wraps a failure of the image server, or of sending the photo.
	ErrFailed = errors.New("the picture could not be drawn")
)

// On tells whether pictures can be drawn.
func (p *Painter) On() bool { return p != nil && p.Model != "" && p.Server != nil && p.Sender != nil }

// Request is one picture to draw.
type Request struct {
	UserID         int64
	Chat           memory.Chat
	ConversationID string // the call's conversation; "": the chat's current one
	UpdateID       int64
	ReplyTo        int64 // the Telegram message the photo answers; 0: none
	Prompt         string
	// PerUpdate bounds the pictures drawn for UpdateID, counting those of
	// earlier runs of the update: one interrupted by a restart after its
	// picture was drawn (and billed) must not draw it again. 0: no bound.
	PerUpdate int
}

// Picture is a picture drawn and sent.
type Picture struct {
	Sent
	MimeType      string
	Model         string
	Prompt        string
	RevisedPrompt string // the prompt the server drew from, when it changed it
}

// CheckPrompt tells whether prompt can be drawn from, and returns it trimmed.
func CheckPrompt(prompt string) (string, error) {
	prompt = strings.TrimSpace(prompt)
	switch {
	case prompt == "":
		return "", ErrNoPrompt
	case !utf8.ValidString(prompt) || utf8.RuneCountInString(prompt) > MaxPromptRunes:
		return "", ErrPromptTooLong
	}
	return prompt, nil
}

// Paint checks req, draws its picture and sends it to the chat. Its
// tokens are reserved before it is drawn (memory.Pictures.ReservePicture:
// pictures asked for at once cannot overspend the day) and given back when
// it was not drawn; a picture cut short by /stop or a shutdown after the
// server may have drawn (and billed) it keeps them. The picture drawn is
// kept before it is sent, so an update handled again after a crash sends
// it instead of drawing it again; nothing is retried, and an update that
// drew req.PerUpdate pictures already is refused (ErrDrawnBefore).
func (p *Painter) Paint(ctx context.Context, req Request) (*Picture, error) {
	if !p.On() {
		return nil, ErrOff
	}
	prompt, err := CheckPrompt(req.Prompt)
	if err != nil {
		return nil, err
	}
	if req.ConversationID == "" {
		if req.ConversationID, err = p.Turns.CurrentConversation(ctx, req.Chat, req.UserID); err != nil {
			return nil, err
		}
	}
	ask := memory.PictureAsk{UserID: req.UserID, ChatID: req.Chat.ID, ConversationID: req.ConversationID, UpdateID: req.UpdateID,
		Model: p.Model, Prompt: prompt, Tokens: p.TokensPerImage, PerUpdate: req.PerUpdate, Limit: -1}
	if p.Budget != nil {
		ask.Limit, ask.DayStart = p.Budget(req.UserID)
	}
	res, err := p.Store.ReservePicture(ctx, ask)
	if err != nil {
		return nil, err
	}
	var img *llm.Image
	callID := res.CallID
	switch {
	case res.Kept != nil: // drawn before a crash, never sent
		img, callID = &llm.Image{Data: res.Kept.Data, MimeType: res.Kept.MimeType, RevisedPrompt: res.Kept.RevisedPrompt}, res.Kept.CallID
	case callID == 0 && req.PerUpdate > 0 && res.Drawn >= req.PerUpdate:
		// Before the budget: a picture drawn before a restart spent the
		// tokens the budget now finds missing.
		return nil, ErrDrawnBefore
	case callID == 0:
		return nil, ErrOverBudget
	default:
		if img, err = p.draw(ctx, ask, callID); err != nil {
			return nil, err
		}
	}
	sent, err := p.Sender.SendPicture(ctx, req.Chat, req.ReplyTo, img.Data)
	if err != nil {
		if ctx.Err() == nil {
			// Telegram refused it, and the user is told so: it is not
			// sent again later. (Cut short by a shutdown, it is.)
			_ = p.Store.PictureSent(ctx, callID)
		}
		return nil, fmt.Errorf("%w: send the photo: %w", ErrFailed, err)
	}
	// Not dropped, the kept picture goes a day later; an update handled
	// again within it would send it once more.
	_ = p.Store.PictureSent(context.WithoutCancel(ctx), callID)
	return &Picture{Sent: sent, MimeType: img.MimeType, Model: p.Model, Prompt: prompt, RevisedPrompt: img.RevisedPrompt}, nil
}

// draw draws the picture of reserved call callID and records how it
// ended, the picture kept, even when the turn was stopped: a stop must not
// make a picture free.
func (p *Painter) draw(ctx context.Context, ask memory.PictureAsk, callID int64) (*llm.Image, error) {
	start := time.Now()
	drawCtx, cancel := context.WithTimeout(ctx, p.timeout())
	img, err := p.Server.GenerateImage(drawCtx, p.Model, ask.Prompt)
	cancel()
	d := memory.PictureDrawn{CallID: callID, Status: "ok", Latency: time.Since(start), Tokens: ask.Tokens,
		ChatID: ask.ChatID, UpdateID: ask.UpdateID, Prompt: ask.Prompt}
	if err != nil {
		d.Status, d.Error = llm.CallStatus(err), truncate(err.Error(), 2000)
		if ctx.Err() == nil { // not drawn: the reserved tokens go back
			d.Tokens = 0
		}
	} else {
		d.Data, d.MimeType, d.RevisedPrompt = img.Data, img.MimeType, img.RevisedPrompt
	}
	if saveErr := p.Store.FinishPicture(context.WithoutCancel(ctx), d); saveErr != nil && err == nil {
		return nil, saveErr
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFailed, err)
	}
	return img, nil
}

func (p *Painter) timeout() time.Duration {
	if p.Timeout <= 0 {
		return DefaultConfig().Timeout
	}
	return p.Timeout
}

// Marker is the text of the assistant row that keeps a picture: what the
// model reads of it on later turns. It is the prompt asked for: a prompt
// the image server revised is its text, not the bot's, and stays in the
// row's metadata (Drawn) for whoever reads the rows.
func (pic *Picture) Marker() string { return "[picture] " + pic.Prompt }

// Media is what a row's metadata "media" keeps of the picture: its kind
// ("image") and Telegram file ids, as a user row's photos are kept.
func (pic *Picture) Media() map[string]any {
	m := map[string]any{"kind": "image", "file_id": pic.FileID, "mime_type": pic.MimeType}
	for k, v := range map[string]any{"file_unique_id": pic.FileUniqueID, "file_size": pic.Size,
		"width": pic.Width, "height": pic.Height} {
		if v != "" && v != 0 && v != int64(0) {
			m[k] = v
		}
	}
	return m
}

// Drawn is what a row's metadata "image" keeps of the picture: how it was drawn.
func (pic *Picture) Drawn() map[string]any {
	m := map[string]any{"model": pic.Model, "prompt": pic.Prompt, "telegram_message_id": pic.MessageID}
	if pic.RevisedPrompt != "" {
		m["revised_prompt"] = pic.RevisedPrompt
	}
	return m
}

// Meta is the metadata of an assistant row that shows pictures.
func Meta(pics ...*Picture) map[string]any {
	if len(pics) == 0 {
		return nil
	}
	var media, drawn []any
	for _, pic := range pics {
		media, drawn = append(media, pic.Media()), append(drawn, pic.Drawn())
	}
	return map[string]any{"media": media, "images": drawn}
}

// Exchange is /image's exchange, kept in the conversation as a message and
// its answer: the user's row (the command as written) and an assistant row
// whose metadata names the picture.
type Exchange struct {
	User      memory.User
	Chat      memory.Chat
	UpdateID  int64
	MessageID int64     // the user's Telegram message
	Text      string    // the command as written
	SentAt    time.Time // when the user wrote it
	Picture   *Picture
}

// Keep stores ex. An update handled again after a crash, whose exchange
// is stored already, stores nothing more.
func (p *Painter) Keep(ctx context.Context, ex Exchange) error {
	now := time.Now
	if p.Now != nil {
		now = p.Now
	}
	written := now()
	if !ex.SentAt.IsZero() && ex.SentAt.Before(written) {
		written = ex.SentAt
	}
	loc := p.Location
	if loc == nil {
		loc = time.UTC
	}
	turn, err := p.Turns.StartTurn(ctx, memory.TurnStart{User: ex.User, Chat: ex.Chat, UpdateID: ex.UpdateID,
		TelegramMessageID: ex.MessageID, Content: stamp.Add(written, loc, ex.Text), WrittenAt: written, Kind: "command"})
	if err != nil || turn.Answer != nil {
		return err
	}
	_, err = p.Turns.SaveStep(ctx, turn.ConversationID, memory.Step{Messages: []memory.Message{{
		Role: memory.RoleAssistant, Content: ex.Picture.Marker(), TelegramMessageID: ex.Picture.MessageID,
		UpdateID: ex.UpdateID, Metadata: Meta(ex.Picture)}}})
	return err
}

// truncate cuts s to at most n bytes, at a character's boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}
