package texts

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
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

// Author names who wrote a group message (their name, username and id),
// as the model sees it: "Anna (@anna)", or "Anna (id 42)" without a
// username. The brackets, the @ and the colon after it are ours alone:
// displayName takes them out of what a person chose as their name, so a
// name "Anna (@anna)" cannot pass for the real @anna.
func Author(name, username string, id int64) string {
	name = displayName(name)
	if name == "" {
		name = "user"
	}
	if username != "" {
		return name + " (@" + username + ")"
	}
	return name + " (id " + strconv.FormatInt(id, 10) + ")"
}

// maxNameRunes bounds a display name in the author prefix.
const maxNameRunes = 64

// displayName is a person's chosen name with the characters of the author
// prefix, line breaks, and invisible or direction-changing characters
// taken out, spaces collapsed, at most maxNameRunes long.
func displayName(s string) string {
	name := strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || strings.ContainsRune("()[]@:", r)
	}), " ")
	if r := []rune(name); len(r) > maxNameRunes {
		name = strings.TrimSpace(string(r[:maxNameRunes]))
	}
	return name
}

// Preview is text on one line, cut to at most n characters.
func Preview(text string, n int) string {
	text = strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(text) <= n {
		return text
	}
	return string([]rune(text)[:n-1]) + "…"
}

// maxTopicWords bounds the name a topic gets from its first message.
const maxTopicWords = 6

// TopicName is the name a new topic gets from its first message: its first
// words, "…" when there are more; "" when it has none.
func TopicName(text string) string {
	words := strings.FieldsFunc(text, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) })
	if len(words) == 0 {
		return ""
	}
	name := strings.Join(words[:min(len(words), maxTopicWords)], " ")
	if len(words) > maxTopicWords {
		name += "…"
	}
	return name
}

// Bullets is items one a line, each after "• " and previewed to at most n
// characters.
func Bullets(items []string, n int) string {
	var b strings.Builder
	for i, t := range items {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("• " + Preview(t, n))
	}
	return b.String()
}

// UserName is "@name, First Last" with what is known of a user; "—" when
// nothing is.
func UserName(username, firstName, lastName string) string {
	var parts []string
	if username != "" {
		parts = append(parts, "@"+username)
	}
	if name := strings.TrimSpace(firstName + " " + lastName); name != "" {
		parts = append(parts, name)
	}
	if len(parts) == 0 {
		return "—"
	}
	return strings.Join(parts, ", ")
}
