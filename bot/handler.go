package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/memory"
)

// Agent answers a text message.
type Agent interface {
	Reply(ctx context.Context, req agent.Request) (*agent.Reply, error)
}

// Memory is what commands change directly.
type Memory interface {
	UpsertUser(ctx context.Context, u memory.User) error
	Reset(ctx context.Context, chatID, userID int64) (string, error)
}

// Handler turns one Telegram update into the bot's answer.
type Handler struct {
	Client *Client
	Agent  Agent
	Memory Memory
	Log    *slog.Logger
	// TypingEvery is how often "typing…" is refreshed while the model works.
	TypingEvery time.Duration
}

// incoming is a message being handled.
type incoming struct {
	update *memory.InboxUpdate
	msg    *tgbotapi.Message
	edited bool // msg is an edit: the answer quotes it
	user   memory.User
}

func (in *incoming) lang() string { return in.user.LanguageCode }

// Handle handles one update. It implements UpdateHandler. What is answered
// and how is decided by routeUpdate (filter.go).
func (h *Handler) Handle(ctx context.Context, u *memory.InboxUpdate) (delivery *memory.Delivery, err error) {
	var in *incoming
	defer func() {
		if p := recover(); p != nil {
			h.Log.Error("panic while handling an update", "update_id", u.UpdateID, "panic", p, "stack", string(debug.Stack()))
			delivery, err = nil, fmt.Errorf("panic: %v", p)
			if in != nil {
				if sendErr := h.reply(ctx, in, T(in.lang(), txtApology)); sendErr != nil {
					err = sendErr
				} else {
					err = fmt.Errorf("panic: %v (apology sent)", p)
				}
			}
		}
	}()
	var upd tgbotapi.Update
	if err := json.Unmarshal(u.Payload, &upd); err != nil {
		return nil, fmt.Errorf("decode update: %w", err)
	}
	r := routeUpdate(&upd, &h.Client.Self)
	switch r.action {
	case ignore:
		h.Log.Debug("update ignored", "update_id", u.UpdateID, "chat_id", u.ChatID, "reason", r.reason)
		return nil, nil
	case answerCallback:
		return nil, h.callback(ctx, upd.CallbackQuery)
	}
	in = &incoming{update: u, msg: r.msg, edited: r.edited, user: userOf(r.msg.From)}
	switch r.action {
	case runCommand:
		return nil, h.command(ctx, in, r.command)
	case textOnly:
		return nil, h.reply(ctx, in, T(in.lang(), txtTextOnly))
	}
	return h.converse(ctx, in, r.text)
}

// converse sends the text to the agent and the answer to the chat.
func (h *Handler) converse(ctx context.Context, in *incoming, text string) (*memory.Delivery, error) {
	stopTyping := h.typing(ctx, in.msg.Chat.ID)
	r, err := h.Agent.Reply(ctx, agent.Request{
		User: in.user, ChatID: in.msg.Chat.ID, UpdateID: in.update.UpdateID,
		MessageID: int64(in.msg.MessageID), Text: text,
	})
	stopTyping()
	if err != nil {
		if errors.Is(err, memory.ErrUnavailable) || ctx.Err() != nil {
			return nil, &RetryLater{Err: err}
		}
		if sendErr := h.reply(ctx, in, T(in.lang(), txtApology)); sendErr != nil {
			return nil, sendErr
		}
		return nil, fmt.Errorf("turn failed (apology sent): %w", err)
	}
	if r.AlreadyDelivered {
		return nil, nil
	}
	answer := r.Text
	if strings.TrimSpace(answer) == "" {
		answer = T(in.lang(), txtEmpty)
	}
	ids, err := h.send(ctx, in, answer)
	if err != nil {
		return nil, err
	}
	return &memory.Delivery{MessageID: r.MessageID, TelegramMessageIDs: ids}, nil
}

// reply sends one of the bot's own texts.
func (h *Handler) reply(ctx context.Context, in *incoming, text string) error {
	_, err := h.send(ctx, in, text)
	return err
}

// send delivers text to the message's chat. Failures that may pass are
// marked for a later retry; the others are final.
func (h *Handler) send(ctx context.Context, in *incoming, text string) ([]int64, error) {
	replyTo := 0
	if !in.msg.Chat.IsPrivate() || in.edited {
		replyTo = in.msg.MessageID // make clear whom (in a group) and what (an edit) the bot answers
	}
	ids, err := h.Client.SendText(ctx, in.msg.Chat.ID, replyTo, text)
	if err != nil && !IsPermanent(err) {
		return ids, &RetryLater{Err: err}
	}
	return ids, err
}

// typing keeps "typing…" on in the chat until the returned func is called.
func (h *Handler) typing(ctx context.Context, chatID int64) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		every := h.TypingEvery
		if every <= 0 {
			every = 4 * time.Second
		}
		for {
			if err := h.Client.Typing(ctx, chatID); err != nil && ctx.Err() == nil {
				h.Log.Debug("typing indicator failed", "chat_id", chatID, "err", err)
			}
			if !sleep(ctx, every) {
				return
			}
		}
	}()
	return func() { cancel(); <-done }
}

// storageError marks a failure to reach the database as passing.
func storageError(err error) error {
	if errors.Is(err, memory.ErrUnavailable) {
		return &RetryLater{Err: err}
	}
	return err
}

func userOf(u *tgbotapi.User) memory.User {
	return memory.User{TelegramUserID: u.ID, Username: u.UserName, FirstName: u.FirstName,
		LastName: u.LastName, LanguageCode: u.LanguageCode}
}
