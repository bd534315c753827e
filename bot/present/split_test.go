package present

import (
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/membot/membot/bot/telegram"
)

func TestSplitMessageKeepsPartsUnderTheLimitAndLosesNothing(t *testing.T) {
	para := strings.Repeat("word ", 300)           // 1500 chars
	emoji := strings.Repeat("😀", 3000)             // 6000 UTF-16 units, no spaces
	lines := strings.Repeat("line of text\n", 500) // 6500 chars
	for name, text := range map[string]string{"paragraphs": para + "\n\n" + para + "\n\n" + para + "\n\n" + para, "emoji": emoji, "lines": lines, "short": "hi"} {
		parts := SplitMessage(text, telegram.MaxMessageLength)
		joined := ""
		for _, p := range parts {
			if n := len(utf16.Encode([]rune(p))); n > telegram.MaxMessageLength || n == 0 {
				t.Errorf("%s: a part has %d UTF-16 units", name, n)
			}
			joined += p
		}
		squash := func(s string) string { return strings.Join(strings.Fields(s), "") }
		if squash(joined) != squash(text) {
			t.Errorf("%s: text lost or changed in splitting", name)
		}
	}
	parts := SplitMessage(para+"\n\n"+para+"\n\n"+para+"\n\n"+para, telegram.MaxMessageLength)
	if len(parts) != 2 || !strings.HasSuffix(parts[0], "word") {
		t.Errorf("paragraph split gave %d parts", len(parts))
	}
}
