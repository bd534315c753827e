package inbox

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/membot/membot/internal/backoff"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/queue"
)

// Inbox is where updates are kept until they are handled.
type Inbox interface {
	SaveUpdates(ctx context.Context, updates []queue.Update) error
}

// Updates is the part of the Telegram client the poller needs.
type Updates interface {
	DeleteWebhook(ctx context.Context) error
	GetUpdates(ctx context.Context, offset int64, timeoutSeconds int) ([]json.RawMessage, error)
}

// Poller long-polls Telegram and stores every update in the inbox before
// Telegram is told (by the next getUpdates offset) that it was received. A
// crash at any moment therefore loses nothing: what was not stored is
// delivered again.
type Poller struct {
	Client  Updates
	Inbox   Inbox
	Notify  func(chatIDs []int64) // called with the chats of each stored batch; nil when Inbox starts the work itself
	Timeout time.Duration         // long-poll timeout
	Metrics Metrics
	Log     *slog.Logger
}

// Run polls until ctx ends. It first deletes any webhook, since Telegram
// refuses getUpdates while one is set.
func (p *Poller) Run(ctx context.Context) {
	if err := p.Client.DeleteWebhook(ctx); err != nil && ctx.Err() == nil {
		p.Log.Warn("deleting the webhook failed; polling anyway", "err", err)
	}
	var offset int64
	retry := backoff.New(500*time.Millisecond, 30*time.Second)
	for ctx.Err() == nil {
		raw, err := p.Client.GetUpdates(ctx, offset, int(p.Timeout/time.Second))
		if err != nil {
			if ctx.Err() == nil {
				p.Log.Warn("polling Telegram failed", "err", err, "retry_in", retry.Peek())
				retry.Sleep(ctx)
			}
			continue
		}
		updates, err := parseUpdates(raw)
		if err != nil {
			p.Log.Error("Telegram sent an update that could not be read whole", "err", err)
		}
		if !p.store(ctx, updates, retry) {
			return // shutting down: the batch will be delivered again
		}
		retry.Reset()
		chats := make([]int64, 0, len(updates))
		for _, u := range updates {
			offset = max(offset, u.UpdateID+1)
			chats = append(chats, u.ChatID)
		}
		if len(chats) > 0 {
			orNone(p.Metrics).UpdatesReceived("polling", len(chats))
		}
		if len(chats) > 0 && p.Notify != nil {
			p.Notify(chats)
		}
	}
}

// store saves a batch, retrying while the database is unreachable; it
// returns false if ctx ended first. A batch the database refuses for another
// reason is saved one update at a time, so that one bad update (logged with
// its id) cannot stop intake for everyone.
func (p *Poller) store(ctx context.Context, updates []queue.Update, retry *backoff.Backoff) bool {
	for {
		err := p.Inbox.SaveUpdates(ctx, updates)
		switch {
		case err == nil:
			return true
		case ctx.Err() != nil:
			return false
		case !memory.IsUnavailable(err) && len(updates) > 1:
			for i := range updates {
				if !p.store(ctx, updates[i:i+1], retry) {
					return false
				}
			}
			return true
		case !memory.IsUnavailable(err):
			p.Log.Error("the database refused an update; it is skipped", "update_id", updates[0].UpdateID,
				"chat_id", updates[0].ChatID, "err", err)
			return true
		}
		p.Log.Error("storing updates failed; they stay unconfirmed at Telegram", "err", err, "count", len(updates), "retry_in", retry.Peek())
		if !retry.Sleep(ctx) {
			return false
		}
	}
}

// envelope has the few fields of an update that routing needs.
type envelope struct {
	UpdateID      int64       `json:"update_id"`
	Message       *chatHolder `json:"message"`
	EditedMessage *chatHolder `json:"edited_message"`
	ChannelPost   *chatHolder `json:"channel_post"`
	CallbackQuery *struct {
		From    struct{ ID int64 } `json:"from"`
		Message *chatHolder        `json:"message"`
	} `json:"callback_query"`
	// The user pressed Stop on a draft (Bot API 10.3): queued in its chat,
	// behind the answer it stops (which sees it: queue.Store.StopRequests).
	StoppedMessageGeneration *chatHolder `json:"stopped_message_generation"`
	// The bot was added to a group or left it: queued in the group, with
	// its messages (the owner decides on it: bot/gate).
	MyChatMember *chatHolder `json:"my_chat_member"`
}

type chatHolder struct {
	Chat struct{ ID int64 } `json:"chat"`
}

// parseUpdates reads the update id and the chat of each update. Updates
// that belong to no chat are queued under chat 0, and so is one whose
// envelope has an unexpected shape but whose id can be read: stored, it is
// confirmed to Telegram (skipped, it would come back forever) and kept for
// an admin to see; its handler gives it up.
func parseUpdates(raw []json.RawMessage) ([]queue.Update, error) {
	updates := make([]queue.Update, 0, len(raw))
	var firstErr error
	for _, r := range raw {
		var e envelope
		err := json.Unmarshal(r, &e)
		if err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("decode update: %w", err)
			}
			var head struct {
				UpdateID int64 `json:"update_id"`
			}
			if json.Unmarshal(r, &head) != nil || head.UpdateID == 0 {
				continue
			}
			e = envelope{UpdateID: head.UpdateID}
		}
		updates = append(updates, queue.Update{UpdateID: e.UpdateID, ChatID: e.chatID(), Payload: r})
	}
	return updates, firstErr
}

func (e *envelope) chatID() int64 {
	switch {
	case e.Message != nil:
		return e.Message.Chat.ID
	case e.EditedMessage != nil:
		return e.EditedMessage.Chat.ID
	case e.ChannelPost != nil:
		return e.ChannelPost.Chat.ID
	case e.CallbackQuery != nil && e.CallbackQuery.Message != nil:
		return e.CallbackQuery.Message.Chat.ID
	case e.CallbackQuery != nil:
		return e.CallbackQuery.From.ID
	case e.StoppedMessageGeneration != nil:
		return e.StoppedMessageGeneration.Chat.ID
	case e.MyChatMember != nil:
		return e.MyChatMember.Chat.ID
	}
	return 0
}
