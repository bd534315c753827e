package present

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/internal/testing/telegramfake"
)

const sampleMarkdown = "# Плана нет\n\nCompare `a < b && c > d` with **bold**, *italic*, _also italic_, ~~gone~~ and snake_case_name.\n\n" +
	"```go\nif a < b && c {\n\tfmt.Println(\"<&>\")\n}\n```\n\n" +
	"- one [link](https://example.org/?a=1&b=2)\n- two\n  - nested *deep*\n\n1. first\n2. second\n\n" +
	"> quoted <div> & done\n\nRaw <b>html</b> stays text, \\*escaped\\* too. Fish & chips; 3 > 2.\n\n" +
	"| name | value |\n|------|-------|\n| x | 1 |\n\n---\nLast line 😀"

func TestRenderMarkdownToTelegramHTML(t *testing.T) {
	html := RenderMarkdown(sampleMarkdown)
	text, entities, err := telegramfake.ParseHTML(html)
	if err != nil {
		t.Fatalf("Telegram would refuse %q: %v", html, err)
	}
	for _, want := range []string{"Плана нет", "a < b && c > d", "snake_case_name", "if a < b && c {\n\tfmt.Println(\"<&>\")\n}",
		"• one link", "    • nested deep", "1. first\n2. second", "quoted <div> & done", "Raw <b>html</b> stays text, *escaped* too. Fish & chips; 3 > 2.",
		"name | value\nx | 1", "———\nLast line 😀"} {
		if !strings.Contains(text, want) {
			t.Errorf("the shown text lacks %q:\n%s", want, text)
		}
	}
	got := map[string]string{}
	for _, e := range entities {
		got[e.Type+":"+e.Text] = e.Language + e.URL
	}
	for entity, extra := range map[string]string{"bold:Плана нет": "", "code:a < b && c > d": "", "bold:bold": "", "italic:italic": "",
		"italic:also italic": "", "strikethrough:gone": "", "text_link:link": "https://example.org/?a=1&b=2", "italic:deep": "",
		"pre:if a < b && c {\n\tfmt.Println(\"<&>\")\n}": "go", "blockquote:quoted <div> & done": ""} {
		if v, ok := got[entity]; !ok || v != extra {
			t.Errorf("entity %q missing or wrong (%q); entities: %v", entity, v, got)
		}
	}
}

func TestEveryPrefixOfAnAnswerRendersToValidHTMLNoLongerThanItself(t *testing.T) {
	// While an answer streams, every prefix of it is shown.
	runes := []rune(sampleMarkdown)
	for n := 1; n <= len(runes); n++ {
		md := string(runes[:n])
		text, _, err := telegramfake.ParseHTML(RenderMarkdown(md))
		if err != nil {
			t.Fatalf("prefix %q renders to invalid HTML: %v", md, err)
		}
		if units(text) > units(md) {
			t.Fatalf("prefix %q shows longer (%d) than written (%d)", md, units(text), units(md))
		}
	}
}

func TestSplitMarkdownKeepsCodeBlocksWhole(t *testing.T) {
	code := "```python\n" + strings.Repeat("print('a < b')  # a line of code\n", 300) + "```\n\nAfter the code."
	parts := SplitMarkdown("Intro.\n\n"+code, telegram.MaxMessageLength)
	if len(parts) != 3 {
		t.Fatalf("%d parts", len(parts))
	}
	for i, p := range parts {
		if units(p) > telegram.MaxMessageLength {
			t.Errorf("part %d has %d units", i, units(p))
		}
		if openFence(p) != "" {
			t.Errorf("part %d leaves a code block open", i)
		}
		_, entities, err := telegramfake.ParseHTML(RenderMarkdown(p))
		if err != nil {
			t.Fatalf("part %d: %v", i, err)
		}
		if len(entities) == 0 || entities[0].Type != "pre" || entities[0].Language != "python" {
			t.Errorf("part %d: entities %+v", i, entities)
		}
	}
	if !strings.HasPrefix(parts[1], "```python\n") || !strings.HasSuffix(parts[2], "After the code.") {
		t.Errorf("parts do not continue the block: %q ... %q", parts[1][:20], parts[2][len(parts[2])-20:])
	}
}

func units(s string) int { return len(utf16.Encode([]rune(s))) }

// nestedList is Markdown of about n characters: a list three levels deep,
// whose rendering indents each level by four spaces where the source has two.
func nestedList(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "- item %d\n  - detail %d of the item\n    - the finest point %d, said at some length\n", i, i, i)
	}
	return b.String()
}

// table is a Markdown table of about n characters, whose rendering puts
// " | " between the cells where the source has "|".
func table(n int) string {
	var b strings.Builder
	b.WriteString("|a|b|c|d|e|f|\n|-|-|-|-|-|-|\n")
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "|%d|x|y|z|w|v|\n", i)
	}
	return b.String()
}

// Every part fits once rendered, as Telegram counts it (the fake's own
// HTML parser), and no item is lost: the answers an attack review saw
// refused as "message is too long" (a 12,016-character nested list, a
// 4,014-character table).
func TestSplitMarkdownFitsAfterRendering(t *testing.T) {
	t.Parallel()
	for name, md := range map[string]string{"nested list": nestedList(12016), "table": table(4014)} {
		if RenderedLen(md) <= len(md) {
			t.Fatalf("%s: rendering does not grow it (%d -> %d); the test proves nothing", name, len(md), RenderedLen(md))
		}
		parts := SplitMarkdown(md, telegram.MaxMessageLength)
		var all strings.Builder
		for i, p := range parts {
			text, _, err := telegramfake.ParseHTML(RenderMarkdown(p))
			if err != nil {
				t.Fatalf("%s part %d: %v", name, i, err)
			}
			if units(text) > telegram.MaxMessageLength {
				t.Errorf("%s part %d: %d units once rendered", name, i, units(text))
			}
			all.WriteString(p + "\n")
		}
		for _, line := range strings.Split(strings.TrimSpace(md), "\n") {
			if !strings.Contains(all.String(), strings.TrimSpace(line)) {
				t.Errorf("%s: %q is in no part", name, line)
				break
			}
		}
	}
}

// Splitting reads the answer a bounded number of times: a 1 MB answer
// costs about as much per byte as a 10 kB one.
func BenchmarkSplitMarkdown1MB(b *testing.B) {
	md := nestedList(1 << 20)
	b.SetBytes(int64(len(md)))
	for b.Loop() {
		SplitMarkdown(md, telegram.MaxMessageLength)
	}
}

func BenchmarkSplitMarkdown10kB(b *testing.B) {
	md := nestedList(10 << 10)
	b.SetBytes(int64(len(md)))
	for b.Loop() {
		SplitMarkdown(md, telegram.MaxMessageLength)
	}
}
