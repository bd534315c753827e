package present

import (
	"strings"
	"unicode/utf16"
)

// utf16Len is the length of s as Telegram counts it.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// SplitMessage cuts text into parts of at most limit UTF-16 code units,
// preferring to cut between paragraphs, then lines, then words; a part is
// cut mid-word only when a single word is longer than the limit.
func SplitMessage(text string, limit int) []string {
	var parts []string
	for {
		// prefixWithin reads at most limit runes, so the whole split reads
		// the text about twice, however long it is.
		head := prefixWithin(text, limit)
		if len(head) == len(text) {
			break
		}
		cut := len(head)
		for _, sep := range []string{"\n\n", "\n", " "} {
			// Only cut late enough that parts do not become tiny.
			if i := strings.LastIndex(head, sep); i > len(head)/2 {
				cut = i
				break
			}
		}
		parts = append(parts, strings.TrimRight(text[:cut], " \n"))
		text = strings.TrimLeft(text[cut:], " \n")
	}
	if strings.TrimSpace(text) != "" || len(parts) == 0 {
		parts = append(parts, text)
	}
	return parts
}

// prefixWithin returns the longest prefix of s of at most limit UTF-16 code units.
func prefixWithin(s string, limit int) string {
	n := 0
	for i, r := range s {
		n += utf16.RuneLen(r)
		if n > limit {
			return s[:i]
		}
	}
	return s
}
