package bot

import (
	"context"
	"strings"

	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/memory/queue"
)

// callback routes a button press; unknown (say, outdated) buttons are
// answered so the user's client stops its spinner. Every press passes
// here first: a press on a button of someone else's private chat (which
// Telegram never sends: only a forged update can) is refused.
func (h *Handler) callback(ctx context.Context, in *incoming) (*queue.Delivery, error) {
	if chat := in.msg.Chat; chat.IsPrivate() && chat.ID != in.user.TelegramUserID {
		h.Log.Warn("a press on a button of someone else's private chat refused", "update_id", in.update.UpdateID,
			"chat_id", chat.ID, "user_id", in.user.TelegramUserID)
		h.notify(ctx, in, tr(in.lang()).NotYourButton)
		return nil, nil
	}
	prefix, arg, _ := strings.Cut(in.query.Data, ":")
	if b, ok := h.routes().callbacks[prefix]; ok {
		if b.groupAdmins {
			if ok, err := h.gate().GroupAdmin(ctx, in.user.TelegramUserID, in.msg.Chat.ID, in.msg.Chat.IsPrivate()); !ok {
				if err != nil {
					return nil, err
				}
				h.notify(ctx, in, tr(in.lang()).GroupAdminsOnlyButton)
				return nil, nil
			}
		}
		if b.do != nil {
			return nil, b.do(ctx, h.call(in))
		}
		return b.run(ctx, h, in, arg)
	}
	return nil, h.Client.AnswerCallback(ctx, in.query.ID, "")
}

// notify answers the button press with a short notice. It never fails the
// update: a press answered late (say, after a restart) is refused by
// Telegram, and the notice is only a courtesy.
func (h *Handler) notify(ctx context.Context, in *incoming, text string) {
	if err := h.Client.AnswerCallback(ctx, in.query.ID, text); err != nil {
		h.Log.Debug("answering a button press failed", "chat_id", in.msg.Chat.ID, "err", err)
	}
}

// edit rewrites the message that has the pressed button. Like notify it
// never fails the update: the press did its work, the message only shows it.
func (h *Handler) edit(ctx context.Context, in *incoming, text string, buttons ...[]telegram.Button) {
	chatID := in.msg.Chat.ID
	err := h.Client.EditMessageText(ctx, telegram.EditMessageTextParams{ChatID: chatID, MessageID: int64(in.msg.MessageID), Text: text, Buttons: buttons})
	if err != nil {
		h.Log.Debug("updating the message of a pressed button failed", "chat_id", chatID, "err", err)
	}
}
