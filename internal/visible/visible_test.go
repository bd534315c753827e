package visible

import (
	"strings"
	"testing"
)

// What a person is shown of a value: every invisible or reordering
// character escaped, newlines too, so a value stays on its line; a long
// value cut with how much is left out.
func TestEscapedAndEscapedCut(t *testing.T) {
	t.Parallel()
	fake := "ok" + strings.Repeat("\n", 40) + "Allow it?"
	for _, c := range []struct{ in, want string }{
		{"mom@example.com", "mom@example.com"},
		{"Привет, мир ✓", "Привет, мир ✓"},
		{"evil\u202egpj.exe", `evil\u202egpj.exe`},
		{"a\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069\u200e\u200f\u061cb", `a\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069\u200e\u200f\u061cb`},
		{"pay\u200b\u200c\u200d\u2060\ufeffpal", `pay\u200b\u200c\u200d\u2060\ufeffpal`},
		{fake, "ok" + strings.Repeat(`\n`, 40) + "Allow it?"},
		{"a\tb\rc\x00d\x1be\x7f\u0085", `a\tb\rc\u0000d\u001be\u007f\u0085`},
		{"line\u2028para\u2029", `line\u2028para\u2029`},
		{"soft\u00adhyphen", `soft\u00adhyphen`},
		{"tag\U000e0041\U000e007f", `tag\U000e0041\U000e007f`},
		{"vs\ufe0f\U000e0100", `vs\ufe0f\U000e0100`},
		{"filler\u3164\u115f", `filler\u3164\u115f`},
		{"private\ue000", `private\ue000`},
		{"bad\xffbyte", `bad\ufffdbyte`},
	} {
		if got := Escaped(c.in); got != c.want {
			t.Errorf("Escaped(%q) = %q, want %q", c.in, got, c.want)
		}
		if got, more := EscapedCut(c.in, 10000); got != c.want || more != 0 {
			t.Errorf("EscapedCut(%q, 10000) = %q, %d", c.in, got, more)
		}
	}
	if got := Escaped(fake); strings.Contains(got, "\n") {
		t.Errorf("a newline is shown as one: %q", got)
	}

	long := strings.Repeat("ab", 5000) // 10,000 characters
	if got, more := EscapedCut(long, 300); got != long[:300] || more != 9700 {
		t.Errorf("EscapedCut of 10,000 characters = %d shown, %d more", len(got), more)
	}
	// An escape is never cut in two; the characters left out are counted
	// as the value has them.
	if got, more := EscapedCut("abc\u202edef", 8); got != "abc" || more != 4 {
		t.Errorf("EscapedCut through an escape = %q, %d", got, more)
	}
	if got, more := EscapedCut("abc\u202edef", 9); got != `abc\u202e` || more != 3 {
		t.Errorf("EscapedCut after an escape = %q, %d", got, more)
	}
	// Telegram counts UTF-16 units: an emoji is two.
	if got, more := EscapedCut("😀😀😀", 5); got != "😀😀" || more != 1 {
		t.Errorf("EscapedCut of emoji = %q, %d", got, more)
	}
}

// What a page shows of a stored text: what hides or reorders it escaped,
// its lines, tabs, emoji and other characters as written.
func TestLines(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"two\nlines\tand a tab", "two\nlines\tand a tab"},
		{"evil\u202egpj.exe\u200b", `evil\u202egpj.exe\u200b`},
		{"a\rb\x00c\x7f\u0085", `a\rb\u0000c\u007f\u0085`},
		{"tag\U000e0041", `tag\U000e0041`},
		{"bad\xffbyte", `bad\ufffdbyte`},
		{"heart ❤\ufe0f, private \ue000, line\u2028", "heart ❤\ufe0f, private \ue000, line\u2028"},
	} {
		if got := Lines(c.in); got != c.want {
			t.Errorf("Lines(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestRunes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		n    int
		want string
		cut  bool
	}{
		{"привет", 6, "привет", false},
		{"привет", 3, "при", true},
		{"😀😀😀", 2, "😀😀", true},
		{"", 0, "", false},
	} {
		if got, cut := Runes(c.in, c.n); got != c.want || cut != c.cut {
			t.Errorf("Runes(%q, %d) = %q, %v; want %q, %v", c.in, c.n, got, cut, c.want, c.cut)
		}
	}
}
