package bot

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/membot/membot/memory"
)

func init() { addTexts(adminTexts) }

// cmdStats: users, who was active today, messages and tokens today.
func cmdStats(ctx context.Context, h *Handler, in *incoming) error {
	a := &h.Access
	st, err := h.Memory.Stats(ctx, a.dayStart(a.now()))
	if err != nil {
		return storageError(err)
	}
	return h.reply(ctx, in, fmt.Sprintf(T(in.lang(), txtStats), a.zone(), st.Users, st.ActiveToday,
		st.MessagesToday, st.StoredMessages, st.TokensToday, st.ModelCallsToday, st.LLMErrorsToday,
		st.ToolCallsToday, st.RefusedToday, st.InboxUnfinished, st.InboxFailed))
}

// cmdUser: a summary of one user, by Telegram id.
func cmdUser(ctx context.Context, h *Handler, in *incoming) error {
	id, err := strconv.ParseInt(strings.TrimSpace(in.msg.CommandArguments()), 10, 64)
	if err != nil || id <= 0 {
		return h.reply(ctx, in, T(in.lang(), txtUserUsage))
	}
	a := &h.Access
	now := a.now()
	st, err := h.Memory.UserStats(ctx, id, a.dayStart(now), a.monthStart(now))
	if err != nil {
		return storageError(err)
	}
	if !st.Known && st.ModelCalls == 0 && st.Refusals == 0 {
		return h.reply(ctx, in, fmt.Sprintf(T(in.lang(), txtUserUnknown), id))
	}
	return h.reply(ctx, in, fmt.Sprintf(T(in.lang(), txtUser), id, describeUser(st.User),
		h.localTime(st.FirstSeen, st.Known), h.localTime(st.LastSeen, st.Known),
		st.Conversations, st.StoredMessages, st.MessagesToday, st.TokensToday,
		st.MessagesMonth, st.TokensMonth, st.TokensTotal, st.ModelCalls, st.Refusals))
}

// describeUser is "@name, First Last" with what is known.
func describeUser(u memory.User) string {
	var parts []string
	if u.Username != "" {
		parts = append(parts, "@"+u.Username)
	}
	if name := strings.TrimSpace(u.FirstName + " " + u.LastName); name != "" {
		parts = append(parts, name)
	}
	if len(parts) == 0 {
		return "—"
	}
	return strings.Join(parts, ", ")
}

func (h *Handler) localTime(t time.Time, known bool) string {
	if !known {
		return "—"
	}
	return t.In(h.Access.zone()).Format("2006-01-02 15:04")
}

const (
	txtStats       = "stats"
	txtUser        = "user"
	txtUserUsage   = "user_usage"
	txtUserUnknown = "user_unknown"
)

var adminTexts = map[string]map[string]string{
	"en": {
		helpKey("stats"): "admins: users, activity and tokens today",
		helpKey("user"):  "admins: a summary of one user: /user ID",
		txtStats: "Today (%s time)\n" +
			"Users: %d, active today: %d\n" +
			"Messages today: %d (rows stored in all: %d)\n" +
			"Tokens today: %d in %d model calls\n" +
			"Model errors today: %d, tool calls today: %d\n" +
			"Refused today (access or limits): %d\n" +
			"Inbox: %d waiting, %d given up",
		txtUser: "User %d (%s)\n" +
			"First seen: %s, last seen: %s\n" +
			"Conversations: %d, stored messages: %d\n" +
			"Today: messages: %d, tokens: %d\n" +
			"This month: messages: %d, tokens: %d\n" +
			"In all: tokens: %d in %d model calls\n" +
			"Days refused: %d",
		txtUserUsage:   "Usage: /user <Telegram id>, for example /user 123456789",
		txtUserUnknown: "I know no user %d.",
	},
	"ru": {
		helpKey("stats"): "для админов: пользователи, активность и токены за сегодня",
		helpKey("user"):  "для админов: сводка по пользователю: /user ID",
		txtStats: "Сегодня (по времени %s)\n" +
			"Пользователей: %d, активных сегодня: %d\n" +
			"Сообщений сегодня: %d (строк в базе всего: %d)\n" +
			"Токенов сегодня: %d за %d вызовов модели\n" +
			"Ошибок модели сегодня: %d, вызовов инструментов сегодня: %d\n" +
			"Отказов сегодня (доступ или лимиты): %d\n" +
			"Очередь: ждут %d, брошено %d",
		txtUser: "Пользователь %d (%s)\n" +
			"Впервые: %s, последний раз: %s\n" +
			"Разговоров: %d, сообщений в базе: %d\n" +
			"Сегодня: сообщений: %d, токенов: %d\n" +
			"В этом месяце: сообщений: %d, токенов: %d\n" +
			"Всего: токенов: %d за %d вызовов модели\n" +
			"Дней с отказом: %d",
		txtUserUsage:   "Так: /user <Telegram id>, например /user 123456789",
		txtUserUnknown: "Пользователя %d я не знаю.",
	},
}
