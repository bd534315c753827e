package usage

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/membot/membot/bot/command"
	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/internal/testing/calltest"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/userdata"
)

var now = time.Date(2030, 5, 6, 12, 0, 0, 0, time.UTC)

// calendar is UTC's, at now.
type calendar struct{}

func (calendar) Now() time.Time                 { return now }
func (calendar) Zone() *time.Location           { return time.UTC }
func (calendar) DayStart(t time.Time) time.Time { return t.Truncate(24 * time.Hour) }
func (calendar) MonthStart(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// store knows users 7 (@jane_doe) and 8, and asks for the day and month
// the calendar begins.
type store struct {
	users map[int64]*userdata.UserStats
	err   error
}

func (s store) UserStats(_ context.Context, id int64, day, month time.Time) (*userdata.UserStats, error) {
	if !day.Equal(calendar{}.DayStart(now)) || !month.Equal(calendar{}.MonthStart(now)) {
		return nil, errors.New("asked for the wrong day or month")
	}
	if st, ok := s.users[id]; ok {
		return st, s.err
	}
	return &userdata.UserStats{}, s.err
}

func (s store) Stats(context.Context, time.Time) (*userdata.Stats, error) {
	return &userdata.Stats{Users: 2, ActiveToday: 1, MessagesToday: 3}, s.err
}

func (s store) UserByUsername(_ context.Context, name string) (int64, error) {
	if name == "jane_doe" {
		return 7, nil
	}
	return 0, memory.ErrNotFound
}

var jane = &userdata.UserStats{User: memory.User{TelegramUserID: 7, Username: "jane_doe", FirstName: "Jane"}, Known: true,
	FirstSeen: now.Add(-48 * time.Hour), LastSeen: now, MessagesToday: 2, TokensToday: 300, MessagesMonth: 9, TokensMonth: 1200}

func commands() Commands {
	return Commands{Store: store{users: map[int64]*userdata.UserStats{7: jane}}, Calendar: calendar{}, DailyTokenLimit: 5000}
}

func TestUsageTellsTheLimitToAllButAdmins(t *testing.T) {
	t.Parallel()
	en := texts.For("en")
	for _, admin := range []bool{false, true} {
		r := &calltest.Recorder{}
		call := r.Call("")
		call.Admin = admin
		if err := commands().Usage(context.Background(), call); err != nil {
			t.Fatal(err)
		}
		limit := en.UsageLimit(int64(5000))
		if admin {
			limit = ""
		}
		if want := en.Usage(time.UTC, 2, int64(300), limit, 9, int64(1200)); r.Last() != want {
			t.Errorf("admin %v: /usage = %q, want %q", admin, r.Last(), want)
		}
	}
}

func TestUser(t *testing.T) {
	t.Parallel()
	en := texts.For("en")
	seen := func(st *userdata.UserStats) string {
		return en.User(int64(7), texts.UserName("jane_doe", "Jane", ""), texts.Clock(st.FirstSeen, time.UTC), texts.Clock(st.LastSeen, time.UTC),
			st.Conversations, st.StoredMessages, st.MessagesToday, st.TokensToday, st.MessagesMonth, st.TokensMonth, st.TokensTotal, st.ModelCalls, st.Refusals)
	}
	cases := []struct{ args, want string }{
		{"7", seen(jane)},
		{"@jane_doe", seen(jane)},
		{"jane_doe", seen(jane)},
		{"@nobody_here", en.UserUnknown("@nobody_here")},
		{"8", en.UserUnknown(int64(8))},
		{"", en.UserUsage},
		{"-3", en.UserUsage},
		{"@a b", en.UserUsage},
	}
	for _, c := range cases {
		r := &calltest.Recorder{}
		if err := commands().User(context.Background(), r.Call(c.args)); err != nil {
			t.Fatal(err)
		}
		if r.Last() != c.want {
			t.Errorf("/user %s = %q, want %q", c.args, r.Last(), c.want)
		}
	}
}

func TestStatsAndFailures(t *testing.T) {
	t.Parallel()
	r := &calltest.Recorder{}
	if err := commands().Stats(context.Background(), r.Call("")); err != nil {
		t.Fatal(err)
	}
	if want := texts.For("en").Stats(time.UTC, 2, 1, 3, 0, int64(0), 0, 0, 0, 0, 0, 0); r.Last() != want {
		t.Errorf("/stats = %q, want %q", r.Last(), want)
	}
	down := Commands{Store: store{err: errors.New("down")}, Calendar: calendar{}}
	for name, do := range map[string]func(context.Context, command.Call) error{"usage": down.Usage, "stats": down.Stats, "user": down.User} {
		r := &calltest.Recorder{}
		if err := do(context.Background(), r.Call("7")); err == nil || len(r.Replies) != 0 {
			t.Errorf("/%s without the database: %v, %q; want the error only", name, err, r.Texts())
		}
	}
}
