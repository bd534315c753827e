package bot

import (
	"context"
	"strings"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/membot/membot/bot/command"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/memory"
)

func (h *Handler) command(ctx context.Context, in *incoming, name string) error {
	arrived := memory.Event{Type: memory.EventMessageReceived, UserID: in.user.TelegramUserID, ChatID: in.msg.Chat.ID,
		UpdateID: in.update.UpdateID, Payload: map[string]any{"kind": "command", "command": name}}
	if err := h.Stores.Access.Arrived(ctx, in.user, arrived); err != nil {
		return err
	}
	spec, ok := h.routes().command(name)
	if !ok {
		return h.reply(ctx, in, tr(in.lang()).Unknown)
	}
	if spec.adminOnly && !h.Access.IsAdmin(in.user.TelegramUserID) {
		return h.reply(ctx, in, tr(in.lang()).AdminsOnly("/"+name))
	}
	if spec.groupAdmins {
		if ok, err := h.gate().GroupAdmin(ctx, in.user.TelegramUserID, in.msg.Chat.ID, in.msg.Chat.IsPrivate()); !ok {
			if err != nil {
				return err
			}
			return h.reply(ctx, in, tr(in.lang()).GroupAdminsOnly("/"+name))
		}
	}
	if spec.do != nil {
		return spec.do(ctx, h.call(in))
	}
	return spec.run(ctx, h, in)
}

// call is in as the command packages see it.
func (h *Handler) call(in *incoming) command.Call {
	c := command.Call{User: in.user, Chat: in.conversation(), Private: in.msg.Chat.IsPrivate(), UpdateID: in.update.UpdateID,
		MessageID: int64(in.msg.MessageID), Text: in.msg.Text, SentAt: sentAt(in), Admin: h.Access.IsAdmin(in.user.TelegramUserID),
		Reply: func(ctx context.Context, text string, buttons ...[]telegram.Button) error {
			return h.reply(ctx, in, text, buttons...)
		},
		OwnRows: func(ctx context.Context) (int64, error) {
			return h.gate().OwnRowsOnly(ctx, in.user.TelegramUserID, in.msg.Chat.ID, in.msg.Chat.IsPrivate())
		},
	}
	if in.query != nil {
		_, c.Args, _ = strings.Cut(in.query.Data, ":")
		c.Notify = func(ctx context.Context, text string) { h.notify(ctx, in, text) }
		c.Edit = func(ctx context.Context, text string, buttons ...[]telegram.Button) {
			h.edit(ctx, in, text, buttons...)
		}
	} else {
		c.Args = in.route.args
	}
	return c
}

func cmdStart(ctx context.Context, h *Handler, in *incoming) error {
	name := in.user.FirstName
	if name == "" {
		name = in.user.Username
	}
	return h.reply(ctx, in, tr(in.lang()).Start(name)+"\n\n"+idsOf(in))
}

// addedMe tells whether msg is the service message of the bot's being
// added to a group.
func addedMe(msg *tgbotapi.Message, self *tgbotapi.User) bool {
	for _, u := range msg.NewChatMembers {
		if u.ID == self.ID {
			return true
		}
	}
	return false
}

// idsOf tells the ids the allowlist settings want: the sender's, and in a
// group the group's (first-run help: no other way to learn them).
func idsOf(in *incoming) string {
	ids := tr(in.lang()).YourID(in.user.TelegramUserID)
	if !in.msg.Chat.IsPrivate() {
		ids = tr(in.lang()).GroupID(in.msg.Chat.ID) + "\n" + ids
	}
	return ids
}

// cmdNew deletes the chat's conversation and opens a fresh one, in the
// default mode. Tool calls waiting for approval are cancelled first (their
// rows stay, for the record). Long-term facts and reminders are kept.
func cmdNew(ctx context.Context, h *Handler, in *incoming) error {
	cancelled, err := h.cancelApprovals(ctx, in.lang(), in.conversation())
	if err != nil {
		return err
	}
	if _, err := h.Stores.Conversations.Reset(ctx, in.conversation(), in.user.TelegramUserID); err != nil {
		return err
	}
	if h.ConversationsReset != nil {
		h.ConversationsReset()
	}
	text := tr(in.lang()).New
	if cancelled > 0 {
		text += "\n" + tr(in.lang()).ApprovalsCanceled(cancelled)
	}
	return h.reply(ctx, in, text, h.newThreadButtons(in)...)
}
