package bot

import (
	"context"
	"fmt"
)

const (
	txtUsage      = "usage"
	txtUsageLimit = "usage_limit"
)

func init() {
	addTexts(map[string]map[string]string{
		"en": {
			helpKey("usage"): "your messages and tokens today and this month",
			txtUsage:         "Your usage (%s time)\nToday: messages: %d, tokens: %d%s\nThis month: messages: %d, tokens: %d",
			txtUsageLimit:    " of %d a day",
		},
		"ru": {
			helpKey("usage"): "ваши сообщения и токены за сегодня и за месяц",
			txtUsage:         "Ваш расход (по времени %s)\nСегодня: сообщений: %d, токенов: %d%s\nВ этом месяце: сообщений: %d, токенов: %d",
			txtUsageLimit:    " из %d в день",
		},
	})
}

// cmdUsage shows the user their own usage today and this month.
func cmdUsage(ctx context.Context, h *Handler, in *incoming) error {
	a := &h.Access
	now := a.now()
	st, err := h.Memory.UserStats(ctx, in.user.TelegramUserID, a.dayStart(now), a.monthStart(now))
	if err != nil {
		return storageError(err)
	}
	limit := ""
	if a.DailyTokenLimit > 0 && !a.IsAdmin(in.user.TelegramUserID) {
		limit = fmt.Sprintf(T(in.lang(), txtUsageLimit), a.DailyTokenLimit)
	}
	return h.reply(ctx, in, fmt.Sprintf(T(in.lang(), txtUsage), a.zone(),
		st.MessagesToday, st.TokensToday, limit, st.MessagesMonth, st.TokensMonth))
}
