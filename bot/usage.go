package bot

import (
	"context"
)

// cmdUsage shows the user their own usage today and this month.
func cmdUsage(ctx context.Context, h *Handler, in *incoming) error {
	a := &h.Access
	now := a.Now()
	st, err := h.Stores.Usage.UserStats(ctx, in.user.TelegramUserID, a.DayStart(now), a.MonthStart(now))
	if err != nil {
		return err
	}
	limit := ""
	if a.DailyTokenLimit > 0 && !a.IsAdmin(in.user.TelegramUserID) {
		limit = tr(in.lang()).UsageLimit(a.DailyTokenLimit)
	}
	return h.reply(ctx, in, tr(in.lang()).Usage(a.Zone(), st.MessagesToday, st.TokensToday, limit, st.MessagesMonth, st.TokensMonth))
}
