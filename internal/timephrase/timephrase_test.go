package timephrase

import (
	"testing"
	"time"
)

func TestFind(t *testing.T) {
	zone := time.FixedZone("UTC+3", 3*3600)
	now := time.Date(2026, 11, 26, 15, 0, 0, 0, zone) // a Thursday
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, zone) }
	for _, c := range []struct {
		query    string
		from, to time.Time
		rest     string
	}{
		{"what did we say yesterday about the car", day(2026, 11, 25), day(2026, 11, 26), "what did we say about the car"},
		{"что я говорил вчера про машину", day(2026, 11, 25), day(2026, 11, 26), "что я говорил про машину"},
		{"trip last May", day(2026, 5, 1), day(2026, 6, 1), "trip"},
		{"поездка в прошлом мае", day(2026, 5, 1), day(2026, 6, 1), "поездка"},
		{"the concert in December", day(2025, 12, 1), day(2026, 1, 1), "the concert"},
		{"концерт в декабре", day(2025, 12, 1), day(2026, 1, 1), "концерт"},
		{"moved in 2023", day(2023, 1, 1), day(2024, 1, 1), "moved"},
		{"переезд в 2023 году", day(2023, 1, 1), day(2024, 1, 1), "переезд"},
		{"job two years ago", day(2024, 1, 1), day(2025, 1, 1), "job"},
		{"работа два года назад", day(2024, 1, 1), day(2025, 1, 1), "работа"},
		{"dinner 3 days ago", day(2026, 11, 23), day(2026, 11, 24), "dinner"},
		{"book last week", day(2026, 11, 16), day(2026, 11, 23), "book"},
		{"книга на прошлой неделе", day(2026, 11, 16), day(2026, 11, 23), "книга"},
		{"wedding in March 2024", day(2024, 3, 1), day(2024, 4, 1), "wedding"},
		{"свадьба в марте 2024", day(2024, 3, 1), day(2024, 4, 1), "свадьба"},
		{"месяц назад", day(2026, 10, 1), day(2026, 11, 1), ""},
	} {
		got, ok := Find(c.query, now)
		if !ok || !got.From.Equal(c.from) || !got.To.Equal(c.to) || got.Rest != c.rest {
			t.Errorf("Find(%q) = %v %v %q, %v; want %v %v %q", c.query, got.From, got.To, got.Rest, ok, c.from, c.to, c.rest)
		}
	}
	for _, q := range []string{"favourite pizza topping", "may I ask about the trip", "in 2030", "mayonnaise recipe"} {
		if got, ok := Find(q, now); ok {
			t.Errorf("Find(%q) found %v-%v", q, got.From, got.To)
		}
	}
}
