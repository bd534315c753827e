package texts

import (
	"fmt"
	"time"
)

// Clock is how every date and time the bot writes looks: one format, in
// the bot's zone (/history, /reminders, /user, approvals, exports, late
// reminders).
func Clock(t time.Time, loc *time.Location) string { return t.In(loc).Format("2006-01-02 15:04") }

// ByteSize writes a size for people: 45 MB, 64 KB.
func ByteSize(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MB", n>>20)
	}
	return fmt.Sprintf("%d KB", n>>10)
}
