// Package usage is what the bot tells of its use: /usage, a user's own
// messages and tokens today and this month; and for its admins /stats,
// the whole bot's day, and /user, one user's summary. bot routes the
// commands (/stats and /user to admins only) to Commands.
package usage

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/membot/membot/bot/command"
	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/userdata"
)

// Store reads the usage counted (memory/userdata's Store).
type Store interface {
	UserStats(ctx context.Context, userID int64, dayStart, monthStart time.Time) (*userdata.UserStats, error)
	Stats(ctx context.Context, dayStart time.Time) (*userdata.Stats, error)
	UserByUsername(ctx context.Context, username string) (int64, error)
}

// Calendar is the bot's time, and where its days and months begin, in the
// zone it shows times in (access.Policy).
type Calendar interface {
	Now() time.Time
	Zone() *time.Location
	DayStart(t time.Time) time.Time
	MonthStart(t time.Time) time.Time
}

// Commands are /usage, /stats and /user.
type Commands struct {
	Store    Store
	Calendar Calendar
	// DailyTokenLimit is the users' (DAILY_TOKEN_LIMIT; 0: none), which
	// /usage tells all but the bot's admins.
	DailyTokenLimit int64
}

// Usage shows the user their own usage today and this month.
func (u Commands) Usage(ctx context.Context, c command.Call) error {
	t, now := texts.For(c.Lang()), u.Calendar.Now()
	st, err := u.Store.UserStats(ctx, c.UserID(), u.Calendar.DayStart(now), u.Calendar.MonthStart(now))
	if err != nil {
		return err
	}
	limit := ""
	if u.DailyTokenLimit > 0 && !c.Admin {
		limit = t.UsageLimit(u.DailyTokenLimit)
	}
	return c.Reply(ctx, t.Usage(u.Calendar.Zone(), st.MessagesToday, st.TokensToday, limit, st.MessagesMonth, st.TokensMonth))
}

// Stats shows the bot's users, who was active today, and today's
// messages, tokens, model and tool calls, errors and refusals.
func (u Commands) Stats(ctx context.Context, c command.Call) error {
	st, err := u.Store.Stats(ctx, u.Calendar.DayStart(u.Calendar.Now()))
	if err != nil {
		return err
	}
	return c.Reply(ctx, texts.For(c.Lang()).Stats(u.Calendar.Zone(), st.Users, st.ActiveToday, st.MessagesToday, st.StoredMessages,
		st.TokensToday, st.ModelCallsToday, st.LLMErrorsToday, st.ToolCallsToday, st.RefusedToday, st.InboxUnfinished, st.InboxFailed))
}

// usernamePattern is what Telegram allows in a username.
var usernamePattern = regexp.MustCompile(`^[A-Za-z0-9_]{4,32}$`)

// User shows a summary of one user, by Telegram id or @username.
func (u Commands) User(ctx context.Context, c command.Call) error {
	t := texts.For(c.Lang())
	arg := strings.TrimSpace(c.Args)
	id, err := strconv.ParseInt(arg, 10, 64)
	if name := strings.TrimPrefix(arg, "@"); err != nil && usernamePattern.MatchString(name) {
		id, err = u.Store.UserByUsername(ctx, name)
		if errors.Is(err, memory.ErrNotFound) {
			return c.Reply(ctx, t.UserUnknown("@"+name))
		}
		if err != nil {
			return err
		}
	}
	if err != nil || id <= 0 {
		return c.Reply(ctx, t.UserUsage)
	}
	now := u.Calendar.Now()
	st, err := u.Store.UserStats(ctx, id, u.Calendar.DayStart(now), u.Calendar.MonthStart(now))
	if err != nil {
		return err
	}
	if !st.Known && st.ModelCalls == 0 && st.Refusals == 0 {
		return c.Reply(ctx, t.UserUnknown(id))
	}
	return c.Reply(ctx, t.User(id, texts.UserName(st.User.Username, st.User.FirstName, st.User.LastName),
		u.shown(st.FirstSeen, st.Known), u.shown(st.LastSeen, st.Known), st.Conversations, st.StoredMessages,
		st.MessagesToday, st.TokensToday, st.MessagesMonth, st.TokensMonth, st.TokensTotal, st.ModelCalls, st.Refusals))
}

// shown is a time of a known user in the bot's zone; "—" for one never seen.
func (u Commands) shown(at time.Time, known bool) string {
	if !known {
		return "—"
	}
	return texts.Clock(at, u.Calendar.Zone())
}
