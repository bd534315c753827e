package bot

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/membot/membot/bot/access"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/memory"
)

// admit is the gate every message passes first: it decides, before anything
// of the message reaches the model or the messages table, whether it is
// handled. When stop is true the sender has been answered (or, for repeats,
// deliberately not) and the message is done.
func (h *Handler) admit(ctx context.Context, in *incoming) (stop bool, err error) {
	a := &h.Access
	userID, chatID := in.user.TelegramUserID, in.msg.Chat.ID
	if in.run != nil && !a.ServesTaskOwner(userID, chatID) {
		return true, h.dropTasks(ctx, in)
	}
	switch {
	case a.Allows(userID, chatID):
		return h.overLimit(ctx, in)
	case a.Mode() == access.Owner && in.run != nil:
		// A run acts for its task's owner: one the owner no longer lets
		// in loses their tasks, and nobody is asked again at each run.
		if ok, err := h.letIn(ctx, userID, in.msg.Chat); err != nil || !ok {
			if err != nil {
				return true, err
			}
			return true, h.dropTasks(ctx, in)
		}
		return h.overLimit(ctx, in)
	case a.Mode() == access.Owner:
		return h.admitByOwner(ctx, in) // pairing.go
	}
	return true, h.refuse(ctx, in, func(context.Context) (string, error) {
		text := tr(in.lang()).AccessDenied(userID)
		if !in.msg.Chat.IsPrivate() {
			text += "\n" + tr(in.lang()).GroupID(chatID)
		}
		return text, nil
	})
}

// dropTasks answers a scheduled run of a user the bot no longer serves
// (taken out of ALLOWED_USER_IDS): nothing is said in the chat, and the
// user's tasks in every chat are cancelled, so none of them runs again.
func (h *Handler) dropTasks(ctx context.Context, in *incoming) error {
	n, err := h.Stores.Reminders.DropUserTasks(ctx, in.user.TelegramUserID)
	if err != nil {
		return err
	}
	h.Log.Info("a scheduled run not answered: its owner is no longer allowed; their tasks are cancelled",
		"user_id", in.user.TelegramUserID, "chat_id", in.msg.Chat.ID, "task_id", in.run.TaskID, "cancelled", n)
	return nil
}

// overLimit stops a message or a button press over the sender's rate or
// daily token limit (a press only counts against the tokens when it calls
// the model: Approve and Reject go on with a turn). When stop is true the
// sender has been told (once a minute for the rate).
func (h *Handler) overLimit(ctx context.Context, in *incoming) (stop bool, err error) {
	a := &h.Access
	userID := in.user.TelegramUserID
	if a.IsAdmin(userID) || (a.DailyTokenLimit <= 0 && a.RatePerMinute <= 0) {
		return false, nil
	}
	now := a.Now()
	usage, err := h.Stores.Usage.RecentUsage(ctx, userID, in.update.UpdateID, a.DayStart(now), now.Add(-time.Minute))
	if err != nil {
		return true, err
	}
	switch {
	case a.RatePerMinute > 0 && usage.Received >= a.RatePerMinute:
		// One notice a minute: a flood of messages gets one answer, not a flood.
		text := tr(in.lang()).RateLimited(a.RatePerMinute)
		return true, h.limited(ctx, in, "rate", usage.RateNotices == 0, text)
	case a.DailyTokenLimit > 0 && usage.TokensToday >= a.DailyTokenLimit && h.spendsTokens(in):
		// Most commands cost no tokens, and /usage must work at the limit;
		// /retry writes a new answer, so it is stopped like a message.
		// A scheduled run is told once a day in its chat: a task that runs
		// every few minutes must not repeat the notice at each run.
		tell := true
		if in.run != nil {
			sent, err := h.Stores.Events.TaskNoticeSent(ctx, userID, in.msg.Chat.ID, "tokens", a.DayStart(now))
			if err != nil {
				return true, err
			}
			tell = !sent
		}
		text := tr(in.lang()).TokenLimit(a.DailyTokenLimit, a.Zone())
		return true, h.limited(ctx, in, "tokens", tell, text)
	}
	return false, nil
}

// budgetSpent tells whether the sender has used their daily tokens up.
func (h *Handler) budgetSpent(ctx context.Context, in *incoming) (bool, error) {
	left, limited, err := h.tokensLeft(ctx, in.user.TelegramUserID, in.update.UpdateID)
	return err == nil && limited && left <= 0, err
}

// tokensLeft is how many tokens userID has left today (access.Policy.TokensLeft),
// the rows of update updateID left out.
func (h *Handler) tokensLeft(ctx context.Context, userID, updateID int64) (left int64, limited bool, err error) {
	return h.Access.TokensLeft(userID, func(dayStart time.Time) (int64, error) {
		usage, err := h.Stores.Usage.RecentUsage(ctx, userID, updateID, dayStart, h.Access.Now().Add(-time.Minute))
		return usage.TokensToday, err
	})
}

// spendsTokens tells whether what in asks for calls the model: a message
// does, and the commands and buttons the routes table marks.
func (h *Handler) spendsTokens(in *incoming) bool {
	if in.query != nil {
		prefix, _, _ := strings.Cut(in.query.Data, ":")
		b, ok := h.routes().callbacks[prefix]
		return ok && b.callsModel
	}
	name, _, isCommand := telegram.CommandOf(in.msg) // the library's Command panics on a hostile entity
	if !isCommand {
		return true
	}
	c, ok := h.routes().command(strings.ToLower(name))
	return ok && c.callsModel
}

// refuse turns away someone not let in, storing nothing of what they
// wrote (the stored update keeps only ids: strangerPayload). The first
// refusal of a day in a chat is answered with what answer says ("": no
// answer); the rest of the day, nothing is sent and answer is not called.
func (h *Handler) refuse(ctx context.Context, in *incoming, answer func(context.Context) (string, error)) error {
	first, err := h.recordRefusal(ctx, in)
	if err != nil || !first {
		return err
	}
	text, err := answer(ctx)
	if err != nil || text == "" {
		return err
	}
	return h.reply(ctx, in, text)
}

// recordRefusal records a refused update and blanks its stored payload;
// first is true for the first refusal of the day in its chat.
func (h *Handler) recordRefusal(ctx context.Context, in *incoming) (first bool, err error) {
	a := &h.Access
	userID, chatID := in.user.TelegramUserID, in.msg.Chat.ID
	first, err = h.Stores.Access.Refuse(ctx, memory.Refusal{UserID: userID, ChatID: chatID, UpdateID: in.update.UpdateID,
		Day: a.Now().In(a.Zone()).Format(time.DateOnly), Payload: strangerPayload(in)})
	if err != nil {
		return false, err
	}
	h.Log.Info("update refused: sender not allowed", "user_id", userID, "chat_id", chatID, "answered", first)
	return first, nil
}

// limited records a message stopped by a limit and, when tell, says why.
func (h *Handler) limited(ctx context.Context, in *incoming, limit string, tell bool, text string) error {
	ev := memory.Event{Type: memory.EventRateLimited, UserID: in.user.TelegramUserID, ChatID: in.msg.Chat.ID,
		UpdateID: in.update.UpdateID, Payload: map[string]any{"limit": limit, "notified": tell}}
	if in.run != nil {
		ev.Payload["task_id"] = in.run.TaskID
	}
	if err := h.Stores.Events.AddEvents(ctx, ev); err != nil {
		return err
	}
	h.Log.Info("message stopped by a limit", "user_id", in.user.TelegramUserID, "limit", limit, "notified", tell)
	if !tell {
		return nil
	}
	return h.reply(ctx, in, text)
}

// admitButton tells whether a button press may be handled; a press from
// someone not allowed gets a short notice instead.
func (h *Handler) admitButton(ctx context.Context, in *incoming) (bool, error) {
	q := in.query
	if ok, err := h.letIn(ctx, q.From.ID, in.msg.Chat); ok || err != nil {
		return ok, err
	}
	if _, err := h.recordRefusal(ctx, in); err != nil {
		return false, err
	}
	return false, h.Client.AnswerCallback(ctx, q.ID, tr(q.From.LanguageCode).AccessDeniedShort)
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

// ownRowsOnly returns whose rows a command may touch in a chat: 0 (all of
// the chat's) for a group's admins and in private chats, otherwise the
// sender's id, so a member cancels their own reminders and sees their own
// approvals and no one else's.
func (h *Handler) ownRowsOnly(ctx context.Context, in *incoming) (int64, error) {
	admin, err := h.groupAdmin(ctx, in)
	if err != nil || admin {
		return 0, err
	}
	return in.user.TelegramUserID, nil
}

// groupAdmin tells whether the sender may change or see what a group
// shares: anyone in a private chat; in a group, its creator and
// administrators (getChatMember) and the bot's admins.
func (h *Handler) groupAdmin(ctx context.Context, in *incoming) (bool, error) {
	chat := in.msg.Chat
	if chat.IsPrivate() || h.Access.IsAdmin(in.user.TelegramUserID) {
		return true, nil
	}
	return h.chatAdmin(ctx, chat.ID, in.user.TelegramUserID)
}

// chatAdmin tells whether a user is the creator or an administrator of a
// chat (getChatMember), as h.chatAdmins remembers it lately.
func (h *Handler) chatAdmin(ctx context.Context, chatID, userID int64) (bool, error) {
	return h.chatAdmins.Is(ctx, chatID, userID, h.Client.MemberStatus)
}
