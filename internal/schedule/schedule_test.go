package schedule

import (
	"strings"
	"testing"
	"time"
)

func TestParseWordsAndCron(t *testing.T) {
	t.Parallel()
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	// A Thursday, 10:00 in Berlin.
	now := time.Date(2026, 11, 26, 10, 0, 0, 0, berlin)
	for _, c := range []struct{ text, cron, next string }{
		{"every weekday at 8:00", "0 8 * * 1-5", "2026-11-27 08:00"},
		{"Every  day at 9", "0 9 * * *", "2026-11-27 09:00"},
		{"every sunday at 18:30", "30 18 * * 0", "2026-11-29 18:30"},
		{"every monday and friday at 07:15", "15 7 * * 1,5", "2026-11-27 07:15"},
		{"every weekend at 10:00", "0 10 * * 0,6", "2026-11-28 10:00"},
		{"every 3 hours", "0 */3 * * *", "2026-11-26 12:00"},
		{"every hour", "0 * * * *", "2026-11-26 11:00"},
		{"0 8 * * 1-5", "0 8 * * 1-5", "2026-11-27 08:00"},
	} {
		s, err := Parse(c.text, berlin)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.text, err)
			continue
		}
		if s.Cron != c.cron {
			t.Errorf("Parse(%q).Cron = %q, want %q", c.text, s.Cron, c.cron)
		}
		if got := s.Next(now).Format("2006-01-02 15:04"); got != c.next {
			t.Errorf("Parse(%q).Next = %s, want %s", c.text, got, c.next)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	t.Parallel()
	for _, text := range []string{"", "whenever", "@every 1s", "CRON_TZ=UTC 0 8 * * *", "* * * * * *", "0 25 * * *",
		"every day at 25:00", "every blursday at 8:00", "0 0 30 2 *", strings.Repeat("1 ", 200)} {
		if _, err := Parse(text, time.UTC); err == nil {
			t.Errorf("Parse(%q) accepted it", text)
		}
	}
}

func TestGap(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		text string
		gap  time.Duration
	}{
		{"* * * * *", time.Minute},
		{"0 8,9 * * *", time.Hour},
		{"every weekday at 8:00", 24 * time.Hour},
		{"*/30 * * * *", 30 * time.Minute},
	} {
		s, err := Parse(c.text, time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Gap(now, 100); got != c.gap {
			t.Errorf("Gap(%q) = %v, want %v", c.text, got, c.gap)
		}
	}
}

// When the clocks go back, the hour that comes twice runs once; the gap
// over that night is a day and an hour, never an hour.
func TestTheHourThatComesTwiceRunsOnce(t *testing.T) {
	t.Parallel()
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse("30 1 * * *", ny)
	if err != nil {
		t.Fatal(err)
	}
	first := time.Date(2026, 11, 1, 1, 30, 0, 0, ny) // EDT, before the clocks go back at 2:00
	if _, off := first.Zone(); off != -4*3600 {
		t.Fatalf("%v is not in daylight time", first)
	}
	if got, want := s.Next(first.Add(-time.Minute)), first; !got.Equal(want) {
		t.Fatalf("Next before = %v, want %v", got, want)
	}
	if got, want := s.Next(first), time.Date(2026, 11, 2, 1, 30, 0, 0, ny); !got.Equal(want) {
		t.Fatalf("Next after the first 1:30 = %v, want %v (not 1:30 again, an hour later)", got, want)
	}
	if got := s.Gap(time.Date(2026, 10, 30, 12, 0, 0, 0, ny), 5); got < 24*time.Hour {
		t.Fatalf("Gap over the night the clocks go back = %v", got)
	}
}

// When the clocks go forward, an occurrence in the skipped hour runs as
// they change, once; occurrences that exist keep their times.
func TestTheSkippedHourRunsWhenTheClocksChange(t *testing.T) {
	t.Parallel()
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	// 2027-03-28: at 2:00 CET the clocks go to 3:00 CEST.
	change := time.Date(2027, 3, 28, 3, 0, 0, 0, berlin)
	night := time.Date(2027, 3, 28, 1, 10, 0, 0, berlin)
	for _, c := range []struct {
		cron string
		want []time.Time
	}{
		{"30 2 * * *", []time.Time{change, time.Date(2027, 3, 29, 2, 30, 0, 0, berlin)}},
		{"0 2 * * 0", []time.Time{change, time.Date(2027, 4, 4, 2, 0, 0, 0, berlin)}},
		{"*/30 * * * *", []time.Time{time.Date(2027, 3, 28, 1, 30, 0, 0, berlin), change, change.Add(30 * time.Minute)}},
		{"0 * * * *", []time.Time{change, change.Add(time.Hour)}},
		{"30 1 * * *", []time.Time{time.Date(2027, 3, 28, 1, 30, 0, 0, berlin), time.Date(2027, 3, 29, 1, 30, 0, 0, berlin)}},
		{"30 3 * * *", []time.Time{time.Date(2027, 3, 28, 3, 30, 0, 0, berlin), time.Date(2027, 3, 29, 3, 30, 0, 0, berlin)}},
	} {
		s, err := Parse(c.cron, berlin)
		if err != nil {
			t.Fatal(err)
		}
		at := night
		for i, want := range c.want {
			if at = s.Next(at); !at.Equal(want) {
				t.Fatalf("%q: occurrence %d after %v = %v, want %v", c.cron, i+1, night, at, want)
			}
		}
	}
}
