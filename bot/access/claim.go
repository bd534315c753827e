package access

import (
	"crypto/rand"
	"crypto/subtle"
	"strings"
	"time"
)

// The bounds of owner mode: the claim code, the wrong codes a user may
// send, and the pairing requests strangers open.
const (
	// CodeLength characters of CodeAlphabet: 31^10, about 8e14 codes.
	CodeLength = 10
	// CodeAlphabet has no letters that read alike (0/O, 1/I/L).
	CodeAlphabet = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
	// CodeLifetime is how long a claim code works; an expired one is
	// replaced at the next start (or by gate.ClaimStatus).
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
