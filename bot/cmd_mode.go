package bot

import (
	"context"
	"strings"

	"github.com/membot/membot/agent/modes"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/queue"
)

// ModeStore is the memory /mode reads and changes.
type ModeStore interface {
	ConversationMode(ctx context.Context, chat memory.Chat, userID int64) (string, error)
	SwitchMode(ctx context.Context, chat memory.Chat, userID int64, to, reason string) (string, error)
}

// Modes: /mode lists the assistant's modes with a button each; /mode NAME
// or a button switches the conversation's mode. memory records every switch
// in mode_switches.

func cmdMode(ctx context.Context, h *Handler, in *incoming) error {
	chat, userID := in.conversation(), in.user.TelegramUserID
	name := strings.ToLower(strings.TrimSpace(in.msg.CommandArguments()))
	if name == "" {
		current, err := h.Memory.ConversationMode(ctx, chat, userID)
		if err != nil {
			return err
		}
		text, buttons := h.modeList(in.lang(), current)
		return h.reply(ctx, in, text, buttons...)
	}
	if _, ok := h.modes().Lookup(name); !ok {
		return h.reply(ctx, in, tr(in.lang()).ModeUnknown(name))
	}
	from, err := h.Memory.SwitchMode(ctx, chat, userID, name, memory.SwitchByCommand)
	if err != nil {
		return err
	}
	if from == name {
		return h.reply(ctx, in, tr(in.lang()).ModeAlready(name))
	}
	return h.reply(ctx, in, tr(in.lang()).ModeSwitched(name))
}

// pressMode switches to the mode of the pressed button and marks it in the list.
func pressMode(ctx context.Context, h *Handler, in *incoming, name string) (*queue.Delivery, error) {
	lang := in.lang()
	if _, ok := h.modes().Lookup(name); !ok {
		h.notify(ctx, in, tr(lang).ModeUnknown(name))
		return nil, nil
	}
	chatID := in.msg.Chat.ID
	if _, err := h.Memory.SwitchMode(ctx, in.conversation(), in.user.TelegramUserID, name, memory.SwitchByButton); err != nil {
		return nil, err
	}
	text, buttons := h.modeList(lang, name)
	if err := h.Client.EditMessageText(ctx, telegram.EditMessageTextParams{ChatID: chatID, MessageID: int64(in.msg.MessageID), Text: text, Buttons: buttons}); err != nil {
		h.Log.Debug("updating the list of modes failed", "chat_id", chatID, "err", err)
	}
	h.notify(ctx, in, tr(lang).ModeSwitchedShort(name))
	return nil, nil
}

// modeList is the list of modes with the current one marked, and a button
// for each.
func (h *Handler) modeList(lang, current string) (string, [][]telegram.Button) {
	lines := []string{tr(lang).ModeList, ""}
	var rows [][]telegram.Button
	for _, m := range h.modes().List() {
		mark, label := "•", m.Name
		if m.Name == current {
			mark, label = "✓", "✓ "+m.Name
		}
		line := mark + " " + m.Name
		if d := describe(lang, m); d != "" {
			line += " — " + d
		}
		lines = append(lines, line)
		rows = append(rows, []telegram.Button{{Text: label, Data: "mode:" + m.Name}})
	}
	return strings.Join(lines, "\n"), rows
}

// describe is a mode's one-line description: the modes file's, else the
// bot's own for a built-in mode.
func describe(lang string, m modes.Mode) string {
	if m.Description != "" {
		return m.Description
	}
	return tr(lang).Mode[m.Name]
}

// builtinModes serves a handler that was given no modes.
var builtinModes, _ = modes.New("", nil)

func (h *Handler) modes() *modes.Set {
	if h.Modes == nil {
		return builtinModes
	}
	return h.Modes
}
