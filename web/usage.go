package web

import (
	"context"
	"net/http"
	"time"

	"github.com/membot/membot/memory/console"
)

// UsageStore is what the usage page reads: the tokens and calls by day,
// user and model (memory/console.Store).
type UsageStore interface {
	UsageByDay(ctx context.Context, since time.Time, zone string) ([]console.DayUsage, error)
	UsageByUser(ctx context.Context, since time.Time) ([]console.UserUsage, error)
	UsageByModel(ctx context.Context, since time.Time) ([]console.ModelUsage, error)
}

// usageDays is how far back the usage page looks.
const usageDays = 30

func (s *Server) usage(w http.ResponseWriter, r *http.Request, v viewer) error {
	ctx := r.Context()
	since := s.dayStart(time.Now()).AddDate(0, 0, -(usageDays - 1))
	used, err := s.deps.Usage.UsageByDay(ctx, since, s.cfg.Location.String())
	if err != nil {
		return err
	}
	days := everyDay(since, usageDays, used)
	users, err := s.deps.Usage.UsageByUser(ctx, since)
	if err != nil {
		return err
	}
	models, err := s.deps.Usage.UsageByModel(ctx, since)
	if err != nil {
		return err
	}
	today, err := s.deps.Usage.UsageByUser(ctx, s.dayStart(time.Now()))
	if err != nil {
		return err
	}
	return s.render(w, r, v, "usage", "Usage", map[string]any{
		"since": since, "days": days, "users": users, "models": models, "today": today,
		"daily_token_limit": s.cfg.DailyTokenLimit,
	})
}

// everyDay is the n days from since, each with its usage (none: zero),
// so the chart's time axis is the period's and its table has every day.
func everyDay(since time.Time, n int, used []console.DayUsage) []console.DayUsage {
	byDay := map[string]console.DayUsage{}
	for _, d := range used {
		byDay[d.Day.Format(time.DateOnly)] = d
	}
	out := make([]console.DayUsage, 0, n)
	for i := range n {
		day := since.AddDate(0, 0, i)
		d, ok := byDay[day.Format(time.DateOnly)]
		if !ok {
			d = console.DayUsage{}
		}
		d.Day = time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, time.UTC)
		out = append(out, d)
	}
	return out
}
