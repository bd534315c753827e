// Package access is who may use the bot and how much (Policy): the
// allowlists, the admins and the owner who claimed the bot, the rate and
// daily token limits, and the days they count in; the claim code, its
// bounds and its link (claim.go); and who administers a group lately
// (ChatAdmins). The gate (bot/gate) enforces it.
package access

import (
	"sync"
	"time"
)

// Mode is how the bot decides whom it serves.
type Mode string

const (
	// Allowlist: ALLOWED_USER_IDS or ALLOWED_CHAT_IDS is set; only they
	// (and the admins) are served, as the settings say.
	Allowlist Mode = "allowlist"
	// Open: ACCESS=open without an allowlist; everyone is served.
	Open Mode = "open"
	// Owner, the default: the admins and the owner who claimed the bot are
	// served, and whom they allowed; a stranger asks them first (pairing).
	Owner Mode = "owner"
)

// Policy says who may use the bot and how much.
type Policy struct {
	// When either list is set, only their users and chats are served.
	AllowedUsers map[int64]bool
	AllowedChats map[int64]bool
	// Admins are always served, never limited, and may use /stats, /user
	// and /users.
	Admins map[int64]bool
	// Access is ACCESS: "open" serves everyone when no allowlist is set;
	// anything else ("" or "owner") serves the owner and whom they allowed.
	Access string
	// Owners are the owners the database knows (they claimed the bot), as
	// far as this process has seen them: admins like Admins. Shared by the
	// copies of the policy; nil knows none.
	Owners          *Owners
	DailyTokenLimit int64 // tokens per user per day in Location; 0: no limit
	RatePerMinute   int   // messages per user per minute; 0: no limit
	Location        *time.Location
	Clock           func() time.Time // time.Now when nil
}

// Mode is how the policy decides whom the bot serves: an allowlist wins;
// without one, ACCESS=open serves everyone and anything else the owner.
func (a *Policy) Mode() Mode {
	switch {
	case len(a.AllowedUsers) > 0 || len(a.AllowedChats) > 0:
		return Allowlist
	case a.Access == string(Open):
		return Open
	}
	return Owner
}

// IsAdmin reports whether userID is one of ADMIN_USER_IDS or an owner.
func (a *Policy) IsAdmin(userID int64) bool { return a.Admins[userID] || a.Owners.Has(userID) }

// Allows reports whether the bot serves userID in chatID as far as the
// settings and the owners known tell; in Owner mode those the owner allowed
// are known only to the database (bot's gate asks it).
func (a *Policy) Allows(userID, chatID int64) bool {
	switch a.Mode() {
	case Open:
		return true
	case Allowlist:
		return a.AllowedUsers[userID] || a.AllowedChats[chatID] || a.IsAdmin(userID)
	}
	return a.IsAdmin(userID)
}

// ServesTaskOwner reports whether a scheduled task of userID may still
// run in chatID, as far as the settings tell. A run acts for its owner:
// while ALLOWED_USER_IDS names users, the owner must be one of them (or
// an admin), whatever chat the task runs in; with ALLOWED_CHAT_IDS alone
// the chat decides, as for a message; in Owner mode the database does
// (bot's gate asks it).
func (a *Policy) ServesTaskOwner(userID, chatID int64) bool {
	switch {
	case len(a.AllowedUsers) > 0:
		return a.AllowedUsers[userID] || a.IsAdmin(userID)
	case a.Mode() == Allowlist:
		return a.Allows(userID, chatID)
	}
	return true
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

// Owners is the set of owners a process has seen in the database. An owner
// is never taken back, so what was seen stays true. The zero value is
// ready to use; a nil *Owners knows none.
type Owners struct {
	mu  sync.Mutex
	ids map[int64]bool
}

// Has reports whether userID is a known owner.
func (o *Owners) Has(userID int64) bool {
	if o == nil {
		return false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.ids[userID]
}

// Add records owners seen in the database.
func (o *Owners) Add(userIDs ...int64) {
	if o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ids == nil {
		o.ids = map[int64]bool{}
	}
	for _, id := range userIDs {
		o.ids[id] = true
	}
}
