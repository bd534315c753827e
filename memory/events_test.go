package memory_test

import (
	"context"
	"testing"
	"time"

	"github.com/membot/membot/memory"
)

// TestExportAgainBoundsExportsPerHour: a user who exported perHour times
// in the hour before now may export again an hour after the oldest of
// those; other events and other users' exports do not count.
func TestExportAgainBoundsExportsPerHour(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := open(t)
	events := store.Events()
	now := time.Now().Truncate(time.Second)
	ago := func(m int) time.Time { return now.Add(-time.Duration(m) * time.Minute) }
	cases := []struct {
		name    string
		user    int64
		exports []time.Time
		perHour int
		want    time.Time
	}{
		{"none", 1, nil, 3, time.Time{}},
		{"two in the hour", 2, []time.Time{ago(50), ago(10)}, 3, time.Time{}},
		{"three, one over an hour ago", 3, []time.Time{ago(70), ago(50), ago(10)}, 3, time.Time{}},
		{"three in the hour", 4, []time.Time{ago(50), ago(20), ago(10)}, 3, ago(50).Add(time.Hour)},
		{"one in the hour, one an hour", 5, []time.Time{ago(30)}, 1, ago(30).Add(time.Hour)},
		{"no bound", 6, []time.Time{ago(50), ago(20), ago(10)}, 0, time.Time{}},
	}
	for _, c := range cases {
		for _, at := range c.exports {
			if err := events.AddEvents(ctx, memory.Event{Type: memory.EventExportSent, UserID: c.user}); err != nil {
				t.Fatal(err)
			}
			if _, err := store.Pool().Exec(ctx, `UPDATE events SET occurred_at = $1 WHERE id = (SELECT max(id) FROM events)`, at); err != nil {
				t.Fatal(err)
			}
		}
		// What is not an export of this user does not count.
		if err := events.AddEvents(ctx, memory.Event{Type: memory.EventReplySent, UserID: c.user},
			memory.Event{Type: memory.EventExportSent, UserID: c.user + 100}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range cases {
		got, err := events.ExportAgain(ctx, c.user, c.perHour, now)
		if err != nil || !got.Equal(c.want) {
			t.Errorf("%s: ExportAgain = %v, %v; want %v", c.name, got, err, c.want)
		}
	}
}
