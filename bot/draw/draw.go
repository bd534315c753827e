// Package draw is the Telegram side of pictures (agent/images): /image, and
// the photos a picture is sent as (Photos, with sendPhoto).
package draw

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/membot/membot/agent/images"
	"github.com/membot/membot/bot/command"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/memory"
)

// Photos sends pictures to chats as photos: images.Sender over the
// Telegram client.
type Photos struct{ Client *telegram.Client }

// SendPicture sends data to chat (in its topic) as a photo.
func (p Photos) SendPicture(ctx context.Context, chat memory.Chat, replyTo int64, data []byte) (images.Sent, error) {
	sent, err := p.Client.SendPhoto(ctx, telegram.Chat{ID: chat.ID, Thread: chat.Thread}, int(replyTo), data)
	return images.Sent(sent), err
}

// Request is one /image command.
type Request struct {
	User      memory.User
	Chat      memory.Chat
	UpdateID  int64
	MessageID int64     // the command's Telegram message
	Text      string    // the command as written
	Prompt    string    // what follows the command
	SentAt    time.Time // when it was written
	// DailyTokenLimit is the user's, for the refusal over it.
	DailyTokenLimit int64
}

// Image answers /image: it draws the prompt's picture, sends it replying
// to the command, and keeps the exchange in the conversation. notice,
// when not "", is what the user is told instead (pictures are off, no or
// too long a prompt, over the day's tokens, the server failed, drawn
// already by this command before a restart: one /image bills once); err is
// what the handler should treat as a failure (the database).
func Image(ctx context.Context, p *images.Painter, req Request, t *texts.Texts, log *slog.Logger) (notice string, err error) {
	pic, err := p.Paint(ctx, images.Request{UserID: req.User.TelegramUserID, Chat: req.Chat, UpdateID: req.UpdateID,
		ReplyTo: req.MessageID, Prompt: req.Prompt, PerUpdate: 1})
	switch {
	case errors.Is(err, images.ErrOff):
		return t.ImageOff, nil
	case errors.Is(err, images.ErrNoPrompt):
		return t.ImageUsage, nil
	case errors.Is(err, images.ErrPromptTooLong):
		return t.ImageTooLong(images.MaxPromptRunes), nil
	case errors.Is(err, images.ErrOverBudget):
		return t.ImageOverBudget(p.TokensPerImage, req.DailyTokenLimit), nil
	case errors.Is(err, images.ErrDrawnBefore):
		return t.ImageDrawnBefore, nil
	case errors.Is(err, images.ErrFailed) && ctx.Err() == nil:
		log.Warn("/image: no picture", "chat_id", req.Chat.ID, "err", err)
		return t.ImageFailed, nil
	case err != nil:
		return "", err
	}
	return "", p.Keep(ctx, images.Exchange{User: req.User, Chat: req.Chat, UpdateID: req.UpdateID, MessageID: req.MessageID,
		Text: req.Text, SentAt: req.SentAt, Picture: pic})
}

// Commands are /image.
type Commands struct {
	Painter *images.Painter
	// DailyTokenLimit is the users' (DAILY_TOKEN_LIMIT), for the refusal
	// over it.
	DailyTokenLimit int64
	// Typing shows "typing…" in the call's chat while the picture is
	// drawn, until stop is called.
	Typing func(ctx context.Context, c command.Call) (stop func())
	Log    *slog.Logger
}

// Image draws a picture of what follows /image.
func (d Commands) Image(ctx context.Context, c command.Call) error {
	stopTyping := d.Typing(ctx, c)
	notice, err := Image(ctx, d.Painter, Request{User: c.User, Chat: c.Chat, UpdateID: c.UpdateID, MessageID: c.MessageID,
		Text: c.Text, Prompt: c.Args, SentAt: c.SentAt, DailyTokenLimit: d.DailyTokenLimit}, texts.For(c.Lang()), d.Log)
	stopTyping()
	if notice != "" {
		return c.Reply(ctx, notice)
	}
	return err
}
