package bot

import (
	"context"
	"strconv"
	"strings"

	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/queue"
)

// Models: /model lists the models of MODELS with a button each; /model
// NAME or a button switches the conversation's model. memory records every
// switch in model_switches; /new keeps the model.

// ModelStore is the memory /model reads and changes.
type ModelStore interface {
	ConversationModel(ctx context.Context, chat memory.Chat, userID int64) (string, error)
	SwitchModel(ctx context.Context, chat memory.Chat, userID int64, to, reason string) (string, error)
}

func cmdModel(ctx context.Context, h *Handler, in *incoming) error {
	chat, userID, lang := in.conversation(), in.user.TelegramUserID, in.lang()
	if len(h.Models) < 2 {
		return h.reply(ctx, in, tr(lang).ModelOnlyOne(strings.Join(h.Models, "")))
	}
	name := strings.TrimSpace(in.msg.CommandArguments())
	if name == "" {
		current, err := h.Memory.ConversationModel(ctx, chat, userID)
		if err != nil {
			return err
		}
		text, buttons := h.modelList(lang, current)
		return h.reply(ctx, in, text, buttons...)
	}
	i := h.modelIndex(name)
	if i < 0 {
		return h.reply(ctx, in, tr(lang).ModelUnknown(name))
	}
	from, err := h.switchModel(ctx, in, i, memory.SwitchByCommand)
	if err != nil {
		return err
	}
	if h.shownModel(from) == i {
		return h.reply(ctx, in, tr(lang).ModelAlready(h.Models[i]))
	}
	return h.reply(ctx, in, tr(lang).ModelSwitched(h.Models[i]))
}

// pressModel switches to the model of the pressed button (its index in
// Models: a name may be longer than callback data allows) and marks it.
func pressModel(ctx context.Context, h *Handler, in *incoming, arg string) (*queue.Delivery, error) {
	lang := in.lang()
	i, err := strconv.Atoi(arg)
	if err != nil || i < 0 || i >= len(h.Models) {
		h.notify(ctx, in, tr(lang).ModelUnknown(arg))
		return nil, nil
	}
	if _, err := h.switchModel(ctx, in, i, memory.SwitchByButton); err != nil {
		return nil, err
	}
	chatID := in.msg.Chat.ID
	text, buttons := h.modelList(lang, h.Models[i])
	if err := h.Client.EditMessageText(ctx, telegram.EditMessageTextParams{ChatID: chatID, MessageID: int64(in.msg.MessageID), Text: text, Buttons: buttons}); err != nil {
		h.Log.Debug("updating the list of models failed", "chat_id", chatID, "err", err)
	}
	h.notify(ctx, in, tr(lang).ModelSwitchedShort(h.Models[i]))
	return nil, nil
}

// switchModel makes Models[i] the conversation's model; the default (the
// first) is stored as "", so that a conversation follows OPENAI_MODEL.
func (h *Handler) switchModel(ctx context.Context, in *incoming, i int, reason string) (string, error) {
	to := h.Models[i]
	if i == 0 {
		to = ""
	}
	from, err := h.Memory.SwitchModel(ctx, in.conversation(), in.user.TelegramUserID, to, reason)
	if err != nil {
		return "", err
	}
	return from, nil
}

// modelIndex is the index of the model named name in Models, or -1.
func (h *Handler) modelIndex(name string) int {
	for i, m := range h.Models {
		if strings.EqualFold(m, name) {
			return i
		}
	}
	return -1
}

// shownModel is the index in Models of a stored choice: the default's for
// "" or a model no longer configured.
func (h *Handler) shownModel(stored string) int {
	if i := h.modelIndex(stored); i >= 0 {
		return i
	}
	return 0
}

// modelList is the list of models with the chat's marked, and a button for each.
func (h *Handler) modelList(lang, current string) (string, [][]telegram.Button) {
	lines := []string{tr(lang).ModelList, ""}
	var rows [][]telegram.Button
	cur := h.shownModel(current)
	for i, m := range h.Models {
		mark, label := "•", m
		if i == cur {
			mark, label = "✓", "✓ "+m
		}
		lines = append(lines, mark+" "+m)
		rows = append(rows, []telegram.Button{{Text: label, Data: "model:" + strconv.Itoa(i)}})
	}
	return strings.Join(lines, "\n"), rows
}
