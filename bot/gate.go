package bot

import (
	"context"
	"encoding/json"
	"strings"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/membot/membot/bot/gate"
	"github.com/membot/membot/bot/present"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/memory"
)

// gate is the handler's gate (bot/gate), built once from its parts.
func (h *Handler) gate() *gate.Gate {
	h.gateOnce.Do(func() {
		h.gk = &gate.Gate{Policy: &h.Access, Store: h.Stores.Access, Usage: h.Stores.Usage, Events: h.Stores.Events,
			Tasks: h.Stores.Reminders, Telegram: gateTelegram{h.Client, h.presenter()}, Log: h.Log}
		if h.Client != nil { // the command menu's handler has none: only the routes' names are read
			h.gk.Bot = h.Client.Self.UserName
		}
	})
	return h.gk
}

// gateTelegram is Telegram as the gate calls it: the client, and texts
// shown in a chat as the presenter shows them.
type gateTelegram struct {
	*telegram.Client
	show *present.Presenter
}

func (t gateTelegram) Send(ctx context.Context, chat telegram.Chat, text string, buttons ...[]telegram.Button) error {
	_, err := t.show.Text(ctx, present.To{Chat: chat}, text, buttons...)
	return err
}

// Serves tells whether the bot serves userID in their private chat, and
// whether they are an admin or an owner (gate.Gate.Serves): who may open
// the Mini App and sign in to the web pages.
func (h *Handler) Serves(ctx context.Context, userID int64) (serves, admin bool, err error) {
	return h.gate().Serves(ctx, userID)
}

// TellAsker tells whoever asked what the owner decided, as the owner's
// buttons do (gate.Gate.TellAsker): the web's decisions.
func (h *Handler) TellAsker(ctx context.Context, req memory.AccessRequest, status string) {
	h.gate().TellAsker(ctx, req, status)
}

// arrival is in as the gate sees it.
func (h *Handler) arrival(in *incoming) gate.Arrival {
	a := gate.Arrival{User: in.user, ChatID: in.msg.Chat.ID, Private: in.msg.Chat.IsPrivate(), ChatTitle: in.msg.Chat.Title,
		UpdateID: in.update.UpdateID, Spends: h.routes().spendsTokens(in),
		Kept:  func() []byte { return strangerPayload(in) },
		Reply: func(ctx context.Context, text string) error { return h.reply(ctx, in, text) },
	}
	if in.run != nil {
		a.TaskID = in.run.TaskID
	}
	switch {
	case in.route.action == membership:
		m := in.decoded.MyChatMember
		a.Kind, a.Old, a.New = gate.Joined, m.OldChatMember.Status, m.NewChatMember.Status
	case in.query != nil:
		a.Kind = gate.Press
		a.Answer = func(ctx context.Context, text string) error { return h.Client.AnswerCallback(ctx, in.query.ID, text) }
	case in.route.action == runCommand:
		a.Kind, a.Command, a.Args = gate.Command, in.route.command, in.route.args
	}
	return a
}

// spendsTokens tells whether what in asks for calls the model: a message
// does, and the commands and buttons the routes table marks.
func (r *routes) spendsTokens(in *incoming) bool {
	if in.query != nil {
		prefix, _, _ := strings.Cut(in.query.Data, ":")
		b, ok := r.callbacks[prefix]
		return ok && b.callsModel
	}
	name, _, isCommand := telegram.CommandOf(in.msg) // the library's Command panics on a hostile entity
	if !isCommand {
		return true
	}
	c, ok := r.command(strings.ToLower(name))
	return ok && c.callsModel
}

// strangerPayload is all that is kept of an update from someone not
// allowed, in place of what Telegram sent: the ids that answering it again
// after a crash needs, none of what they wrote or who they are.
func strangerPayload(in *incoming) []byte {
	from := map[string]any{"id": in.user.TelegramUserID, "is_bot": false, "first_name": "", "language_code": in.user.LanguageCode}
	var msg map[string]any
	if in.msg != nil {
		msg = map[string]any{"message_id": in.msg.MessageID, "date": in.msg.Date,
			"chat": map[string]any{"id": in.msg.Chat.ID, "type": in.msg.Chat.Type}}
	}
	update := map[string]any{"update_id": in.update.UpdateID}
	switch {
	case in.route.action == membership:
		m := in.decoded.MyChatMember
		member := func(c tgbotapi.ChatMember) map[string]any {
			var id int64
			if c.User != nil {
				id = c.User.ID
			}
			return map[string]any{"status": c.Status, "user": map[string]any{"id": id, "is_bot": true, "first_name": ""}}
		}
		update["my_chat_member"] = map[string]any{"chat": msg["chat"], "from": from, "date": m.Date,
			"old_chat_member": member(m.OldChatMember), "new_chat_member": member(m.NewChatMember)}
	case in.query != nil:
		q := map[string]any{"id": in.query.ID, "from": from, "chat_instance": ""}
		if msg != nil {
			q["message"] = msg
		}
		update["callback_query"] = q
	case in.edited:
		msg["from"] = from
		update["edited_message"] = msg
	default:
		msg["from"] = from
		update["message"] = msg
	}
	data, _ := json.Marshal(update) // maps of numbers and strings always encode
	return data
}
