package telegram

import (
	"encoding/json"
	"strings"
	"unicode/utf16"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// Reading what Telegram sends: what the library's types do not say, or
// say unsafely (entities are counted in UTF-16 units, and an entity longer
// than its text makes the library's Message.Command panic).

// ThreadOf is the topic an update's payload belongs to (its
// message_thread_id, which the library does not know): of a private chat
// with topics, or of a forum supergroup (is_topic_message: a reply thread
// of a group without topics has a message_thread_id too, and is no
// topic); 0 when none.
func ThreadOf(payload []byte) int64 {
	type msg struct {
		MessageThreadID int64 `json:"message_thread_id"`
		IsTopicMessage  bool  `json:"is_topic_message"`
		Chat            struct {
			Type string `json:"type"`
		} `json:"chat"`
	}
	var u struct {
		Message       *msg `json:"message"`
		EditedMessage *msg `json:"edited_message"`
		CallbackQuery *struct {
			Message *msg `json:"message"`
		} `json:"callback_query"`
	}
	if json.Unmarshal(payload, &u) != nil {
		return 0
	}
	m := u.Message
	switch {
	case m == nil && u.EditedMessage != nil:
		m = u.EditedMessage
	case m == nil && u.CallbackQuery != nil:
		m = u.CallbackQuery.Message
	}
	if m == nil || m.MessageThreadID <= 0 || (m.Chat.Type != "private" && !m.IsTopicMessage) {
		return 0
	}
	return m.MessageThreadID
}

// CommandOf returns the command a message starts with and the bot it names
// after the @ (empty when none). Unlike the library's Message.Command it
// cannot panic on an entity longer than the text.
func CommandOf(msg *tgbotapi.Message) (name, target string, ok bool) {
	if len(msg.Entities) == 0 || msg.Entities[0].Type != "bot_command" || msg.Entities[0].Offset != 0 {
		return "", "", false
	}
	cmd, ok := EntityText(msg.Text, msg.Entities[0])
	if !ok || !strings.HasPrefix(cmd, "/") {
		return "", "", false
	}
	name, target, _ = strings.Cut(cmd[1:], "@")
	return name, target, true
}

// CommandArgs returns what follows the command a message starts with,
// trimmed ("" when it starts with none). Unlike the library's
// Message.CommandArguments it counts the command in UTF-16 units, as
// Telegram does, and cannot panic on an entity longer than the text.
func CommandArgs(msg *tgbotapi.Message) string {
	if _, _, ok := CommandOf(msg); !ok {
		return ""
	}
	units := utf16.Encode([]rune(msg.Text))
	return strings.TrimSpace(string(utf16.Decode(units[msg.Entities[0].Length:])))
}

// Addressed reports whether a group message is meant for the bot: it
// mentions @botname or replies to one of the bot's messages.
func Addressed(msg *tgbotapi.Message, self *tgbotapi.User) bool {
	if r := msg.ReplyToMessage; r != nil && r.From != nil && r.From.ID == self.ID {
		return true
	}
	text, entities := msg.Text, msg.Entities
	if text == "" {
		text, entities = msg.Caption, msg.CaptionEntities
	}
	for _, e := range entities {
		switch e.Type {
		case "mention":
			if m, ok := EntityText(text, e); ok && self.UserName != "" && strings.EqualFold(m, "@"+self.UserName) {
				return true
			}
		case "text_mention":
			if e.User != nil && e.User.ID == self.ID {
				return true
			}
		}
	}
	return false
}

// EntityText cuts an entity out of text; Telegram counts in UTF-16 units.
func EntityText(text string, e tgbotapi.MessageEntity) (string, bool) {
	units := utf16.Encode([]rune(text))
	if e.Offset < 0 || e.Length <= 0 || e.Offset+e.Length > len(units) {
		return "", false
	}
	return string(utf16.Decode(units[e.Offset : e.Offset+e.Length])), true
}

// MediaKind names what a message carries besides text; "" for service
// messages, which carry nothing a person wrote.
func MediaKind(msg *tgbotapi.Message) string {
	switch {
	case len(msg.Photo) > 0:
		return "photo"
	case msg.Sticker != nil:
		return "sticker"
	case msg.Voice != nil:
		return "voice message"
	case msg.VideoNote != nil:
		return "video message"
	case msg.Video != nil:
		return "video"
	case msg.Animation != nil:
		return "animation"
	case msg.Audio != nil:
		return "audio"
	case msg.Document != nil:
		return "file"
	case msg.Location != nil || msg.Venue != nil:
		return "location"
	case msg.Contact != nil:
		return "contact"
	case msg.Poll != nil:
		return "poll"
	case msg.Dice != nil:
		return "dice"
	case msg.Game != nil:
		return "game"
	}
	return ""
}

// Forwarded tells whether Telegram marked msg, the message of an update's
// payload, forwarded: Bot API 7's forward_origin (which the library does
// not know), or the fields before it that the library decodes. Only
// Telegram sets them; no text a person writes can.
func Forwarded(msg *tgbotapi.Message, payload []byte) bool {
	if msg.ForwardDate != 0 || msg.ForwardFrom != nil || msg.ForwardFromChat != nil || msg.ForwardSenderName != "" {
		return true
	}
	type origin struct {
		ForwardOrigin json.RawMessage `json:"forward_origin"`
	}
	var u struct {
		Message       *origin `json:"message"`
		EditedMessage *origin `json:"edited_message"`
	}
	if json.Unmarshal(payload, &u) != nil {
		return false
	}
	for _, m := range []*origin{u.Message, u.EditedMessage} {
		if m != nil && len(m.ForwardOrigin) > 0 && string(m.ForwardOrigin) != "null" {
			return true
		}
	}
	return false
}
