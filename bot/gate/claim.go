package gate

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/membot/membot/bot/access"
	"github.com/membot/membot/bot/texts"
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

// claimCode is the code of "/start <code>" in a private chat.
func claimCode(a Arrival) (string, bool) {
	if !a.Private || a.Kind != Command || a.Command != "start" {
		return "", false
	}
	code := strings.TrimSpace(a.Args)
	return code, code != ""
}

// claim makes the sender the owner when code is the claim code. A wrong
// code is answered (while the sender has tries left this hour) and kept
// nowhere: the update is refused like a stranger's.
func (g *Gate) claim(ctx context.Context, a Arrival, code string) error {
	userID := a.userID()
	outcome, left, err := g.Store.ClaimOwner(ctx, userID, a.UpdateID,
		func(live string) bool { return access.SameCode(code, live) }, access.WrongCodesPerHour)
	if err != nil {
		return err
	}
	t := texts.For(a.lang())
	switch outcome {
	case memory.ClaimOwned:
		g.Policy.Owners.Add(userID)
		g.Log.Warn("the bot is claimed: its owner is this user", "user_id", userID, "username", a.User.Username)
		arrived := memory.Event{Type: memory.EventMessageReceived, UserID: userID, ChatID: a.ChatID,
			UpdateID: a.UpdateID, Payload: map[string]any{"kind": "command", "command": "start"}}
		if err := g.Store.Arrived(ctx, a.User, arrived); err != nil {
			return err
		}
		return a.Reply(ctx, t.ClaimDone(texts.Author(a.User.FirstName, a.User.Username, userID)))
	case memory.ClaimTaken: // claimed by someone else a moment ago
		return g.askOwner(ctx, a)
	}
	if _, err := g.recordRefusal(ctx, a); err != nil {
		return err
	}
	g.Log.Warn("a wrong or expired claim code was sent", "user_id", userID, "tries_left", left)
	switch outcome {
	case memory.ClaimWrong:
		if left == 0 {
			return a.Reply(ctx, t.ClaimWrongLast)
		}
		return a.Reply(ctx, t.ClaimWrong(left))
	case memory.ClaimExpired:
		st, err := ClaimStatus(ctx, g.Policy, g.Store, g.Bot) // a new code, in the log
		if err != nil {
			return err
		}
		st.Log(g.Log)
		return a.Reply(ctx, t.ClaimExpired)
	}
	return nil // too many wrong codes this hour: the last one said so
}
