package bot

import (
	"context"
	"time"

	"github.com/membot/membot/memory/userdata"
)

// UsageStore is what /usage reads.
type UsageStore interface {
	UserStats(ctx context.Context, userID int64, dayStart, monthStart time.Time) (*userdata.UserStats, error)
}

// cmdUsage shows the user their own usage today and this month.
func cmdUsage(ctx context.Context, h *Handler, in *incoming) error {
	a := &h.Access
	now := a.Now()
	st, err := h.Users.UserStats(ctx, in.user.TelegramUserID, a.DayStart(now), a.MonthStart(now))
	if err != nil {
		return err
	}
	limit := ""
	if a.DailyTokenLimit > 0 && !a.IsAdmin(in.user.TelegramUserID) {
		limit = tr(in.lang()).UsageLimit(a.DailyTokenLimit)
	}
	return h.reply(ctx, in, tr(in.lang()).Usage(a.Zone(), st.MessagesToday, st.TokensToday, limit, st.MessagesMonth, st.TokensMonth))
}
