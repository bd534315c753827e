// Package access is who may use the bot and how much (Policy): the
// allowlists, the admins, the rate and daily token limits, and the days
// they count in; and who administers a group lately (ChatAdmins). bot's
// gate (bot/access.go) enforces it.
package access

import (
	"time"
)

// Policy says who may use the bot and how much. The zero value lets
// everyone in, without limits.
type Policy struct {
	// When either list is set, only their users and chats are served; with
	// both empty the bot is open to everyone.
	AllowedUsers map[int64]bool
	AllowedChats map[int64]bool
	// Admins are always served, never limited, and may use /stats and /user.
	Admins          map[int64]bool
	DailyTokenLimit int64 // tokens per user per day in Location; 0: no limit
	RatePerMinute   int   // messages per user per minute; 0: no limit
	Location        *time.Location
	Clock           func() time.Time // time.Now when nil
}

// Open reports whether the bot answers anyone.
func (a *Policy) Open() bool { return len(a.AllowedUsers) == 0 && len(a.AllowedChats) == 0 }

// IsAdmin reports whether userID is one of ADMIN_USER_IDS.
func (a *Policy) IsAdmin(userID int64) bool { return a.Admins[userID] }

// Allows reports whether the bot serves userID in chatID.
func (a *Policy) Allows(userID, chatID int64) bool {
	return a.Open() || a.AllowedUsers[userID] || a.AllowedChats[chatID] || a.Admins[userID]
}

// ServesTaskOwner reports whether a scheduled task of userID may still
// run in chatID. A run acts for its owner: while ALLOWED_USER_IDS names
// users, the owner must be one of them (or an admin), whatever chat the
// task runs in; without it the chat decides, as for a message.
func (a *Policy) ServesTaskOwner(userID, chatID int64) bool {
	if len(a.AllowedUsers) > 0 {
		return a.AllowedUsers[userID] || a.Admins[userID]
	}
	return a.Allows(userID, chatID)
}

// Now is the time the limits count from.
func (a *Policy) Now() time.Time {
	if a.Clock != nil {
		return a.Clock()
	}
	return time.Now()
}

// Zone is the zone the days of the limits (and every time shown) are in.
func (a *Policy) Zone() *time.Location {
	if a.Location == nil {
		return time.UTC
	}
	return a.Location
}

// DayStart is midnight of t's day in the configured zone.
func (a *Policy) DayStart(t time.Time) time.Time {
	y, m, d := t.In(a.Zone()).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, a.Zone())
}

// TokensLeft is how many tokens userID has left today under
// DailyTokenLimit, used(dayStart) giving what they used since the day
// began; limited is false when nothing limits them (no limit, or an admin).
func (a *Policy) TokensLeft(userID int64, used func(dayStart time.Time) (int64, error)) (left int64, limited bool, err error) {
	if a.DailyTokenLimit <= 0 || a.IsAdmin(userID) {
		return 0, false, nil
	}
	spent, err := used(a.DayStart(a.Now()))
	return a.DailyTokenLimit - spent, true, err
}

// MonthStart is midnight of the first of t's month in the configured zone.
func (a *Policy) MonthStart(t time.Time) time.Time {
	y, m, _ := t.In(a.Zone()).Date()
	return time.Date(y, m, 1, 0, 0, 0, 0, a.Zone())
}
