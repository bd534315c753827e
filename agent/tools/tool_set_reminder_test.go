package tools

import (
	"testing"
	"time"
)

func TestDueTimeReadsTimesAndDurationsInTheBotsZone(t *testing.T) {
	t.Parallel()
	moscow, _ := time.LoadLocation("Europe/Moscow")
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC) // 15:00 in Moscow
	good := map[[2]string]string{
		{"2026-11-22 09:30", ""}:     "2026-11-22 09:30",
		{"2026-11-22T09:30:00", ""}:  "2026-11-22 09:30",
		{"18:00", ""}:                "2026-11-21 18:00", // later today
		{"09:00", ""}:                "2026-11-22 09:00", // passed: tomorrow
		{"2026-11-21T20:00:00Z", ""}: "2026-11-21 23:00", // its own offset
		{"", "45m"}:                  "2026-11-21 15:45",
		{"", "2h30m"}:                "2026-11-21 17:30",
		{"", "1.5h"}:                 "2026-11-21 16:30",
		{"", "1w 2d"}:                "2026-11-30 15:00",
		{"", "90 min"}:               "2026-11-21 16:30",
		{"", "30s"}:                  "2026-11-21 15:00",
		{"2027-01-01 00:00", ""}:     "2027-01-01 00:00",
		{"2026-11-21T15:00:05", ""}:  "2026-11-21 15:00",
		{"2026-11-21 15:01", ""}:     "2026-11-21 15:01",
		{"", "3d"}:                   "2026-11-24 15:00",
		{"", "10M"}:                  "2026-11-21 15:10",
		{"23:59", ""}:                "2026-11-21 23:59",
		{"2026-12-31 23:59:59", ""}:  "2026-12-31 23:59",
	}
	for in, want := range good {
		due, err := dueTime(in[0], in[1], now, moscow)
		if err != nil {
			t.Errorf("dueTime(%q, %q): %v", in[0], in[1], err)
			continue
		}
		if got := due.In(moscow).Format("2006-01-02 15:04"); got != want {
			t.Errorf("dueTime(%q, %q) = %s, want %s", in[0], in[1], got, want)
		}
	}
	bad := [][2]string{{"", ""}, {"18:00", "1h"}, {"2026-11-20 10:00", ""}, {"tomorrow", ""}, {"", "soon"},
		{"", "5"}, {"", "h"}, {"", "-5m"}, {"", "20y"}, {"", "99999w"}, {"2040-01-01 00:00", ""},
		{"2026-11-21T13:00:00+01:00", ""}} // exactly now is not in the future
	for _, in := range bad {
		if due, err := dueTime(in[0], in[1], now, moscow); err == nil {
			t.Errorf("dueTime(%q, %q) = %v, want an error", in[0], in[1], due)
		}
	}
}
