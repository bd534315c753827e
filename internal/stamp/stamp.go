// Package stamp owns the time stamp before the text of every stored user
// row: "[Текущее время: YYYY-MM-DD HH:MM] text", the wall-clock time the
// model is shown. The SQL function membot_plain_text (migrations/00003)
// strips the same prefix for full-text search; migrations' tests check
// that the two agree.
package stamp

import (
	"strings"
	"time"
)

const open = "[Текущее время: "

// Add prefixes text with the wall-clock time t in loc.
func Add(t time.Time, loc *time.Location, text string) string {
	return open + t.In(loc).Format("2006-01-02 15:04") + "] " + text
}

// Strip returns a user row's text without the stamp Add put before it.
func Strip(content string) string {
	if rest, ok := strings.CutPrefix(content, open); ok {
		if _, text, ok := strings.Cut(rest, "] "); ok {
			return text
		}
	}
	return content
}

// Index is where the last stamp in text begins, or -1 when there is none.
func Index(text string) int { return strings.LastIndex(text, open) }
