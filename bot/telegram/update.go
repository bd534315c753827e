package telegram

import (
	"encoding/json"
	"errors"
	"slices"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// Reading an update safely. The Bot API makes most of an update optional
// (a callback query's message is absent when the button is on an inline
// message; a poll answer may come from a chat, not a user), and the
// library's helpers (Update.FromChat, Update.SentFrom) dereference what
// may be absent. The accessors below are the one place the bot reads an
// update's chat and sender from: they return nil when the update has none.

// DecodeUpdate reads an update's payload: the update, and the topic it
// belongs to (0 when none, or in a private chat when the bot has no
// topics), which the library does not know. An update whose message has
// no chat (which Telegram never sends) is an error, so that everything
// after may take a message's chat for granted.
func (c *Client) DecodeUpdate(payload []byte) (*tgbotapi.Update, int64, error) {
	var upd tgbotapi.Update
	if err := json.Unmarshal(payload, &upd); err != nil {
		return nil, 0, err
	}
	if err := checkUpdate(&upd); err != nil {
		return nil, 0, err
	}
	thread := ThreadOf(payload)
	if chat := ChatOf(&upd); chat != nil && chat.IsPrivate() && !c.TopicsEnabled() {
		thread = 0
	}
	return &upd, thread, nil
}

// errNoChat is an update whose message names no chat.
var errNoChat = errors.New("a message without its chat")

// checkUpdate refuses the shapes the Bot API never sends and the bot could
// not read safely: a message without a chat, a button press without its
// sender.
func checkUpdate(upd *tgbotapi.Update) error {
	for _, m := range []*tgbotapi.Message{upd.Message, upd.EditedMessage, upd.ChannelPost, upd.EditedChannelPost} {
		if m != nil && m.Chat == nil {
			return errNoChat
		}
	}
	if q := upd.CallbackQuery; q != nil {
		switch {
		case q.From == nil:
			return errors.New("a callback query without its sender")
		case q.Message != nil && q.Message.Chat == nil:
			return errNoChat
		}
	}
	return nil
}

// ChatOf is the chat an update happened in: its message's, or the chat of
// the message whose button was pressed; nil when it has none (an inline
// query, a press on an inline message, a poll, ...).
func ChatOf(upd *tgbotapi.Update) *tgbotapi.Chat {
	if m := MessageOf(upd); m != nil {
		return m.Chat
	}
	return nil
}

// MessageOf is the message an update is, or the message whose button was
// pressed (which may be inaccessible: date 0, only its chat and id); nil
// when it has none.
func MessageOf(upd *tgbotapi.Update) *tgbotapi.Message {
	switch {
	case upd.Message != nil:
		return upd.Message
	case upd.EditedMessage != nil:
		return upd.EditedMessage
	case upd.ChannelPost != nil:
		return upd.ChannelPost
	case upd.EditedChannelPost != nil:
		return upd.EditedChannelPost
	case upd.CallbackQuery != nil:
		return upd.CallbackQuery.Message // nil on an inline message
	}
	return nil
}

// SenderOf is the user an update comes from: who wrote the message or
// pressed the button; nil when no user is named (a channel post, a
// message sent on behalf of a chat, a poll's new state).
func SenderOf(upd *tgbotapi.Update) *tgbotapi.User {
	switch {
	case upd.CallbackQuery != nil:
		return upd.CallbackQuery.From
	case upd.InlineQuery != nil:
		return upd.InlineQuery.From
	case upd.ChosenInlineResult != nil:
		return upd.ChosenInlineResult.From
	case upd.ShippingQuery != nil:
		return upd.ShippingQuery.From
	case upd.PreCheckoutQuery != nil:
		return upd.PreCheckoutQuery.From
	}
	if m := MessageOf(upd); m != nil {
		return m.From
	}
	return nil
}

// KindOf names what an update's payload carries: the field beside
// update_id ("message", "inline_query", ... or a kind newer than the
// bot), "" when there is none.
func KindOf(payload []byte) string {
	var fields map[string]json.RawMessage
	if json.Unmarshal(payload, &fields) != nil {
		return ""
	}
	var kinds []string
	for k := range fields {
		if k != "update_id" {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) == 0 {
		return ""
	}
	slices.Sort(kinds)
	if k := kinds[0]; len(k) <= maxKind {
		return k
	}
	return kinds[0][:maxKind] // a key of any length: what is kept of it is bounded
}

// maxKind bounds the kind KindOf reads.
const maxKind = 64
