// Package visible shows text a person reads in full: the characters they
// could not see, or that change how the text around them reads, are
// written as escapes (\u202e). What the approval prompts show of a tool
// call's arguments (Escaped, EscapedCut) and what the web pages show of
// a stored text (Lines) is decided here, once.
package visible

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Escaped is s with every character a person could not see, or that could
// change how the text around it reads, written as an escape: control
// characters (a newline as \n), bidi overrides, isolates and marks,
// zero-width and other format characters, line and paragraph separators,
// variation selectors, fillers, private-use and unassigned characters.
// What a value holds is then all on its line and in its order.
func Escaped(s string) string { return escapeAll(s, hidden) }

// Lines is s with the characters that hide or reorder text (bidi
// controls, zero-width and other format characters, controls but newline
// and tab) written as escapes; the rest, lines and an emoji's variation
// selector among them, is kept as written, for a page that shows a stored
// text as its writer saw it.
func Lines(s string) string { return escapeAll(s, reordering) }

// escapeAll is s with each character for which escaped says so written as
// an escape.
func escapeAll(s string, escaped func(rune) bool) string {
	if strings.IndexFunc(s, escaped) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if escaped(r) {
			b.WriteString(escape(r))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// EscapedCut is Escaped(s) cut to at most limit UTF-16 code units
// (Telegram's measure of a message), never inside an escape, and how many
// of s's characters it leaves out.
func EscapedCut(s string, limit int) (shown string, more int) {
	var b strings.Builder
	n := 0
	for i, r := range s {
		e := string(r)
		if hidden(r) {
			e = escape(r)
		}
		n += UTF16Len(e)
		if n > limit {
			return b.String(), utf8.RuneCountInString(s[i:])
		}
		b.WriteString(e)
	}
	return b.String(), 0
}

// Runes is s cut to at most n characters, and whether it was cut.
func Runes(s string, n int) (string, bool) {
	if utf8.RuneCountInString(s) <= n {
		return s, false
	}
	return string([]rune(s)[:n]), true
}

// UTF16Len is the length of s in UTF-16 code units.
func UTF16Len(s string) int {
	n := 0
	for _, r := range s {
		n += max(utf16.RuneLen(r), 1)
	}
	return n
}

// reordering tells whether r hides or reorders the text around it: a
// control character but newline and tab, a format character (bidi
// controls, zero-width characters), or bytes that are no character.
func reordering(r rune) bool {
	if r == '\n' || r == '\t' {
		return false
	}
	return r == utf8.RuneError || unicode.In(r, unicode.Cc, unicode.Cf)
}

// hidden tells whether r is written as an escape by Escaped.
func hidden(r rune) bool {
	switch {
	case r == utf8.RuneError, r < ' ', r == 0x7f:
		return true
	case r < 0x80:
		return false
	case reordering(r), unicode.In(r, unicode.Co, unicode.Cs, unicode.Zl, unicode.Zp, unicode.Variation_Selector):
		return true
	case r == 0x034f, r == 0x115f, r == 0x1160, r == 0x17b4, r == 0x17b5, r == 0x3164, r == 0xffa0, r == 0x2800,
		r >= 0x180b && r <= 0x180f:
		return true // invisible, yet not format characters: the combining grapheme joiner, fillers, blanks
	}
	return !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Zs) // unassigned
}

// escape writes r as an escape.
func escape(r rune) string {
	switch r {
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	}
	if r > 0xffff {
		return fmt.Sprintf(`\U%08x`, r)
	}
	return fmt.Sprintf(`\u%04x`, r)
}
