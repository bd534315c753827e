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

// Store records the calls, and keeps /image's exchange (memory.Store is one).
type Store interface {
	CurrentConversation(ctx context.Context, chat memory.Chat, userID int64) (string, error)
	PicturesDrawn(ctx context.Context, chatID, updateID int64) (int, error)
	StartTurn(ctx context.Context, in memory.TurnStart) (*memory.Turn, error)
	SaveStep(ctx context.Context, conversationID string, st memory.Step) ([]int64, error)
}

// Budget tells how many tokens userID has left today, limited false when
// nothing limits them (no DAILY_TOKEN_LIMIT, or an admin).
type Budget func(ctx context.Context, userID int64) (left int64, limited bool, err error)

// Painter draws pictures and sends them. Set every field but Budget (nil:
// no limit) and Now.
type Painter struct {
	Config
	Server   Generator
	Sender   Sender
	Store    Store
	Budget   Budget
	Location *time.Location // the stamp of /image's user row
	Now      func() time.Time
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

// Paint checks req, draws its picture and sends it to the chat. The call
// is recorded in llm_calls whatever came of it (a failed one counts no
// tokens); nothing is retried, as a generation that timed out may still
// be billed, and an update that drew req.PerUpdate pictures already is
// refused (ErrDrawnBefore).
func (p *Painter) Paint(ctx context.Context, req Request) (*Picture, error) {
	if !p.On() {
		return nil, ErrOff
	}
	prompt, err := CheckPrompt(req.Prompt)
	if err != nil {
		return nil, err
	}
	// Before the budget: a picture drawn before a restart spent the tokens
	// the budget would now find missing.
	if req.PerUpdate > 0 && req.UpdateID != 0 {
		n, err := p.Store.PicturesDrawn(ctx, req.Chat.ID, req.UpdateID)
		if err != nil {
			return nil, err
		}
		if n >= req.PerUpdate {
			return nil, ErrDrawnBefore
		}
	}
	if p.Budget != nil {
		left, limited, err := p.Budget(ctx, req.UserID)
		if err != nil {
			return nil, err
		}
		if limited && left < int64(p.TokensPerImage) {
			return nil, ErrOverBudget
		}
	}
	if req.ConversationID == "" {
		if req.ConversationID, err = p.Store.CurrentConversation(ctx, req.Chat, req.UserID); err != nil {
			return nil, err
		}
	}
	call := memory.LLMCall{UserID: req.UserID, ChatID: req.Chat.ID, ConversationID: req.ConversationID, UpdateID: req.UpdateID,
		Model: p.Model, Purpose: memory.PurposeImage, UsageEstimated: true, Status: "ok"}
	start := time.Now()
	drawCtx, cancel := context.WithTimeout(ctx, p.timeout())
	img, err := p.Server.GenerateImage(drawCtx, p.Model, prompt)
	cancel()
	call.Latency = time.Since(start)
	if err == nil || ctx.Err() != nil {
		// Drawn, or cut short by /stop or a shutdown after the server may
		// have drawn (and billed) it: it counts either way.
		call.PromptTokens = p.TokensPerImage
	}
	if err != nil {
		call.Status, call.Error = llm.CallStatus(err), truncate(err.Error(), 2000)
	}
	// Recorded even when the turn was stopped: a stop must not make a
	// picture free.
	if _, saveErr := p.Store.SaveStep(context.WithoutCancel(ctx), req.ConversationID, memory.Step{LLMCalls: []memory.LLMCall{call}}); saveErr != nil && err == nil {
		return nil, saveErr
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFailed, err)
	}
	sent, err := p.Sender.SendPicture(ctx, req.Chat, req.ReplyTo, img.Data)
	if err != nil {
		return nil, fmt.Errorf("%w: send the photo: %w", ErrFailed, err)
	}
	return &Picture{Sent: sent, MimeType: img.MimeType, Model: p.Model, Prompt: prompt, RevisedPrompt: img.RevisedPrompt}, nil
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
	turn, err := p.Store.StartTurn(ctx, memory.TurnStart{User: ex.User, Chat: ex.Chat, UpdateID: ex.UpdateID,
		TelegramMessageID: ex.MessageID, Content: stamp.Add(written, loc, ex.Text), WrittenAt: written, Kind: "command"})
	if err != nil || turn.Answer != nil {
		return err
	}
	_, err = p.Store.SaveStep(ctx, turn.ConversationID, memory.Step{Messages: []memory.Message{{
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
