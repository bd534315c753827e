package bot

import (
	"strings"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/bot/media"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/bot/texts"
)

// action is what the bot does with an update.
type action int

const (
	ignore         action = iota // not for this bot: nothing is sent, the model is not called
	answerCallback               // a press of one of the bot's buttons
	runCommand                   // a command such as /new
	converse                     // text for the model
	textOnly                     // a sticker, location... without a caption: say what is understood
	withMedia                    // a voice message, audio, video note, photo or file: fetched and read (media.go)
	membership                   // the bot was added to a group or left it (bot/gate)
)

// route is the decision about one update.
type route struct {
	action  action
	msg     *tgbotapi.Message // the message answered (for commands, text and textOnly)
	edited  bool              // msg is an edit of an earlier message
	command string            // runCommand: lowercase, without the slash and @botname
	args    string            // runCommand: what follows it (telegram.CommandArgs)
	text    string            // converse: what the model gets
	reason  string            // ignore: why, for the log
	// withMedia: the file, the caption, and the author's name before the
	// text in groups ("Anna (@anna): ").
	media  agent.Attachment
	author string
}

// routeUpdate decides whether and how the bot answers an update. self is
// the bot's own user (from getMe).
//
//   - The bot's being added to a group or leaving it (my_chat_member) is
//     for the owner to decide on (bot/gate).
//   - Channel posts, messages sent on behalf of a chat or channel, messages
//     from bots and service messages (someone joined, a pinned message...) are
//     ignored.
//   - In a group the bot answers only when addressed: a command (for it), a
//     mention of @botname, or a reply to one of its messages. The group is one
//     conversation; each text is prefixed with its author's name.
//   - /cmd@otherbot is ignored in groups. In a private chat every command is
//     for this bot, whatever follows the @.
//   - A voice message, audio, video note, photo or file is fetched and read
//     (media.go); other media are answered from their caption, marked with
//     their kind, and without a caption the bot says what it understands.
//   - An edited message is answered again, as a new message marked [edited]
//     (what a user who fixes a typo expects); edits without text (a live
//     location moving) and edits of commands are ignored.
func routeUpdate(upd *tgbotapi.Update, self *tgbotapi.User) route {
	if upd.CallbackQuery != nil {
		return route{action: answerCallback}
	}
	if m := upd.MyChatMember; m != nil {
		if m.NewChatMember.User == nil || m.NewChatMember.User.ID != self.ID || m.Chat.IsPrivate() {
			return route{action: ignore, reason: "membership change of another user, or of a private chat"}
		}
		return route{action: membership}
	}
	msg, edited := upd.Message, false
	if msg == nil && upd.EditedMessage != nil {
		msg, edited = upd.EditedMessage, true
	}
	switch {
	case msg == nil:
		return route{action: ignore, reason: "a kind of update the bot does not serve"}
	case msg.From == nil || msg.SenderChat != nil:
		return route{action: ignore, reason: "sent on behalf of a chat or channel"}
	case msg.From.IsBot:
		return route{action: ignore, reason: "sent by a bot"}
	}
	private := msg.Chat.IsPrivate()
	if !private && addedMe(msg, self) && !edited {
		// Added to a group: its /start greets the group with the ids the
		// settings want (or the refusal does, naming the group).
		return route{action: runCommand, msg: msg, command: "start"}
	}

	if name, target, ok := telegram.CommandOf(msg); ok {
		switch {
		case edited:
			return route{action: ignore, reason: "edited command"}
		case !private && target != "" && !strings.EqualFold(target, self.UserName):
			return route{action: ignore, reason: "command for another bot"}
		}
		return route{action: runCommand, msg: msg, command: strings.ToLower(name), args: telegram.CommandArgs(msg)}
	}
	if !private && !telegram.Addressed(msg, self) {
		return route{action: ignore, reason: "group message not addressed to the bot"}
	}

	author := ""
	if !private {
		u := msg.From
		author = texts.Author(u.FirstName+" "+u.LastName, u.UserName, u.ID) + ": "
	}
	if att, ok := media.Of(msg); ok && !edited {
		return route{action: withMedia, msg: msg, text: msg.Caption, media: att, author: author}
	}
	text, kind := msg.Text, ""
	if text == "" {
		text, kind = msg.Caption, telegram.MediaKind(msg)
	}
	if strings.TrimSpace(text) == "" {
		switch {
		case kind == "":
			return route{action: ignore, reason: "service message"}
		case edited:
			return route{action: ignore, reason: "edited media without text"}
		}
		return route{action: textOnly, msg: msg, edited: edited}
	}
	if kind != "" {
		text = "[" + kind + "] " + text
	}
	if edited {
		text = "[edited] " + text
	}
	text = author + text
	return route{action: converse, msg: msg, edited: edited, text: text}
}
