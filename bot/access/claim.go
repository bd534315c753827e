package access

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"log/slog"
	"strings"
	"time"

	"github.com/membot/membot/memory"
)

// The bounds of owner mode: the claim code, the wrong codes a user may
// send, and the pairing requests strangers open.
const (
	// CodeLength characters of CodeAlphabet: 31^10, about 8e14 codes.
	CodeLength = 10
	// CodeAlphabet has no letters that read alike (0/O, 1/I/L).
	CodeAlphabet = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
	// CodeLifetime is how long a claim code works; an expired one is
	// replaced at the next start (or by ClaimStatus).
	CodeLifetime = 24 * time.Hour
	// WrongCodesPerHour is how many wrong codes a user may send an hour.
	WrongCodesPerHour = 5
	// MaxPending requests wait for the owner at once; RequestLifetime is
	// how long one waits (a stranger asks at most once in that time).
	MaxPending      = 3
	RequestLifetime = 24 * time.Hour
)

// NewCode is a fresh claim code.
func NewCode() string {
	b := make([]byte, CodeLength)
	for i := range b {
		b[i] = CodeAlphabet[randIndex(len(CodeAlphabet))]
	}
	return string(b)
}

// randIndex is a uniform index below n from crypto/rand.
func randIndex(n int) int {
	limit := 256 - 256%n // reject the bytes that would favour the low values
	var b [1]byte
	for {
		if _, err := rand.Read(b[:]); err != nil {
			panic("crypto/rand: " + err.Error()) // never fails on supported systems
		}
		if int(b[0]) < limit {
			return int(b[0]) % n
		}
	}
}

// SameCode tells whether what a user sent is the code, as a person types
// it: any case, with spaces or dashes.
func SameCode(sent, code string) bool {
	sent = strings.ToUpper(strings.NewReplacer(" ", "", "-", "").Replace(strings.TrimSpace(sent)))
	return code != "" && subtle.ConstantTimeCompare([]byte(sent), []byte(code)) == 1
}

// ClaimLink is the link that opens the bot with its claim code: Telegram
// sends "/start <code>" when it is pressed.
func ClaimLink(botUsername, code string) string {
	return "https://t.me/" + botUsername + "?start=" + code
}

// Status is who the bot serves, for the start-up log and `membot doctor`.
type Status struct {
	Mode Mode
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

// ClaimStore keeps the owner and the claim code (memory.Store).
type ClaimStore interface {
	AccessClaim(ctx context.Context, newCode string, lifetime time.Duration) (memory.Claim, error)
}

// ClaimStatus says who the bot serves and, when it waits for its owner,
// the claim code and link (the code is made, or renewed when expired, and
// kept in the database until the claim: every start shows the same one).
func (a *Policy) ClaimStatus(ctx context.Context, store ClaimStore, botUsername string) (Status, error) {
	st := Status{Mode: a.Mode()}
	if st.Mode != Owner || len(a.Admins) > 0 {
		st.Claimed = st.Mode == Owner
		return st, nil
	}
	c, err := store.AccessClaim(ctx, NewCode(), CodeLifetime)
	if err != nil {
		return st, err
	}
	st.Claimed, st.ServedBefore = c.Claimed, c.ServedBefore && !c.Claimed
	if !c.Claimed {
		st.Code, st.Link, st.Expires = c.Code, ClaimLink(botUsername, c.Code), c.ExpiresAt
	}
	return st, nil
}

// Log says at start-up (and when a code is renewed) whom the bot serves
// and, while it has no owner, how to claim it: one warning with the link
// and the code, and one more for a bot that served people before, which
// now serves only its owner.
func (s Status) Log(log *slog.Logger) {
	switch {
	case s.Mode == Open:
		log.Warn("the bot is open to everyone (ACCESS=open): anyone who finds it uses it on your tokens; " +
			"unset ACCESS to serve only its owner, or set ALLOWED_USER_IDS")
	case s.Mode == Owner && s.Claimed:
		log.Info("access: the owner, the admins and whom they allow; a stranger's first message asks the owner (/users). " +
			"ACCESS=open would serve anyone")
	case s.Mode == Owner:
		log.Warn("the bot has no owner yet and answers no one: open the claim link in Telegram (or send it /start CODE) "+
			"to become its owner", "claim_link", s.Link, "code", s.Code, "expires", s.Expires.UTC().Format(time.RFC3339))
		if s.ServedBefore {
			log.Warn("this bot served everyone before (no ALLOWED_USER_IDS): now it serves its owner and whom the owner allows. " +
				"Claim it with the link above, or set ACCESS=open to keep it open to everyone")
		}
	}
}
