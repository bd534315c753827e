package bot

import (
	"context"
	"log/slog"
	"time"

	"github.com/membot/membot/bot/access"
	"github.com/membot/membot/memory"
)

// AccessStatus is who the bot serves, for the start-up log and `membot doctor`.
type AccessStatus struct {
	Mode access.Mode
	// Claimed: in owner mode, an owner or an admin exists. Otherwise the
	// fields below are set: the claim code, its link and when it expires.
	Claimed bool
	Code    string
	Link    string
	Expires time.Time
	// ServedBefore: unclaimed, but the bot has users from before (it was
	// open): they wait for the owner now.
	ServedBefore bool
}

// ClaimStore keeps the owner and the claim code (memory.Access).
type ClaimStore interface {
	AccessClaim(ctx context.Context, newCode string, lifetime time.Duration) (memory.Claim, error)
}

// ClaimStatus says whom the bot of policy a serves and, while it waits for
// its owner, the claim code and link (the code is made, or renewed when
// expired, and kept in the database until the claim: every start shows the
// same one). The start-up log and `membot doctor` show it.
func ClaimStatus(ctx context.Context, a *access.Policy, store ClaimStore, botUsername string) (AccessStatus, error) {
	st := AccessStatus{Mode: a.Mode()}
	if st.Mode != access.Owner || len(a.Admins) > 0 {
		st.Claimed = st.Mode == access.Owner
		return st, nil
	}
	c, err := store.AccessClaim(ctx, access.NewCode(), access.CodeLifetime)
	if err != nil {
		return st, err
	}
	st.Claimed, st.ServedBefore = c.Claimed, c.ServedBefore && !c.Claimed
	if !c.Claimed {
		st.Code, st.Link, st.Expires = c.Code, access.ClaimLink(botUsername, c.Code), c.ExpiresAt
	}
	return st, nil
}

// Log says at start-up (and when a code is renewed) whom the bot serves
// and, while it has no owner, how to claim it: one warning with the link
// and the code, and one more for a bot that served people before, which
// now serves only its owner.
func (s AccessStatus) Log(log *slog.Logger) {
	switch {
	case s.Mode == access.Open:
		log.Warn("the bot is open to everyone (ACCESS=open): anyone who finds it uses it on your tokens; " +
			"unset ACCESS to serve only its owner, or set ALLOWED_USER_IDS")
	case s.Mode == access.Owner && s.Claimed:
		log.Info("access: the owner, the admins and whom they allow; a stranger's first message asks the owner (/users). " +
			"ACCESS=open would serve anyone")
	case s.Mode == access.Owner:
		log.Warn("the bot has no owner yet and answers no one: open the claim link in Telegram (or send it /start CODE) "+
			"to become its owner", "claim_link", s.Link, "code", s.Code, "expires", s.Expires.UTC().Format(time.RFC3339))
		if s.ServedBefore {
			log.Warn("this bot served everyone before (no ALLOWED_USER_IDS): now it serves its owner and whom the owner allows. " +
				"Claim it with the link above, or set ACCESS=open to keep it open to everyone")
		}
	}
}
