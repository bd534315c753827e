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

// displayName is a person's chosen name as a Label, without the
// characters of the author prefix.
func displayName(s string) string {
	return Label(strings.Map(func(r rune) rune {
		if strings.ContainsRune("()[]@:", r) {
			return ' '
		}
		return r
	}, s), maxNameRunes)
}

// Label is a name that came from outside (a file's, a person's, a tool's
// or its server's) made safe to show to the user and the model, where it
// stands inside the bot's own text: control and format characters taken
// out (right-to-left overrides and the other direction marks,
// zero-width characters), line breaks and every run of spaces one space, square
// brackets made round (so a name cannot close a "[file …]" marker and
// write after it), at most maxRunes long. Every label the bot shows goes
// through it.
func Label(s string, maxRunes int) string {
	visible := strings.Map(func(r rune) rune {
		if !unicode.IsSpace(r) && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r)) {
			return -1 // invisible: taken out, joining what stood around it
		}
		return r
	}, s)
	label := strings.Join(strings.Fields(visible), " ") // line breaks too
	label = strings.NewReplacer("[", "(", "]", ")").Replace(label)
	if r := []rune(label); len(r) > maxRunes {
		label = strings.TrimSpace(string(r[:maxRunes]))
	}
	return label
}

// Duration is a recording's length, m:ss.
func Duration(seconds int) string { return fmt.Sprintf("%d:%02d", seconds/60, seconds%60) }

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
