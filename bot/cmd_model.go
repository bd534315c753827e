package bot

import (
	"context"

	"github.com/membot/membot/bot/choice"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/memory/queue"
)

// /model and /mode list the conversation's model or mode with a button
// each, and switch it by name or by a button (bot/choice).

func cmdModel(ctx context.Context, h *Handler, in *incoming) error {
	a, err := choice.Models{Names: h.Models, Store: h.Stores.Choices}.Command(ctx, asker(in), in.msg.CommandArguments())
	if err != nil {
		return err
	}
	return h.reply(ctx, in, a.Text, a.Buttons...)
}

func pressModel(ctx context.Context, h *Handler, in *incoming, arg string) (*queue.Delivery, error) {
	p, err := choice.Models{Names: h.Models, Store: h.Stores.Choices}.Press(ctx, asker(in), arg)
	return nil, h.pressedChoice(ctx, in, "models", p, err)
}

func cmdMode(ctx context.Context, h *Handler, in *incoming) error {
	a, err := choice.Modes{Modes: h.Modes, Store: h.Stores.Choices}.Command(ctx, asker(in), in.msg.CommandArguments())
	if err != nil {
		return err
	}
	return h.reply(ctx, in, a.Text, a.Buttons...)
}

func pressMode(ctx context.Context, h *Handler, in *incoming, name string) (*queue.Delivery, error) {
	p, err := choice.Modes{Modes: h.Modes, Store: h.Stores.Choices}.Press(ctx, asker(in), name)
	return nil, h.pressedChoice(ctx, in, "modes", p, err)
}

// asker is who asks in, for bot/choice.
func asker(in *incoming) choice.Asker {
	return choice.Asker{Chat: in.conversation(), UserID: in.user.TelegramUserID, Lang: in.lang()}
}

// pressedChoice shows a press on the list of models or modes (what): the
// list edited to mark the new choice, and the press answered.
func (h *Handler) pressedChoice(ctx context.Context, in *incoming, what string, p choice.Pressed, err error) error {
	if err != nil {
		return err
	}
	if p.List != nil {
		chatID := in.msg.Chat.ID
		err := h.Client.EditMessageText(ctx, telegram.EditMessageTextParams{ChatID: chatID, MessageID: int64(in.msg.MessageID), Text: p.List.Text, Buttons: p.List.Buttons})
		if err != nil {
			h.Log.Debug("updating the list of "+what+" failed", "chat_id", chatID, "err", err)
		}
	}
	h.notify(ctx, in, p.Notice)
	return nil
}
