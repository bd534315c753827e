package telegramfake

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"
)

// Entity is a formatting entity of a message, as Telegram reports it.
type Entity struct {
	Type     string // bold, italic, underline, strikethrough, spoiler, code, pre, text_link, blockquote, expandable_blockquote, custom_emoji
	Offset   int    // in UTF-16 code units of the shown text, as Telegram counts
	Length   int
	Language string // of a pre block, from <pre><code class="language-go">
	URL      string // of a text_link
	Text     string // the text it covers, for tests
}

// tagEntity maps the tags of Telegram's HTML parse mode to entity types.
var tagEntity = map[string]string{
	"b": "bold", "strong": "bold", "i": "italic", "em": "italic", "u": "underline", "ins": "underline",
	"s": "strikethrough", "strike": "strikethrough", "del": "strikethrough", "span": "spoiler", "tg-spoiler": "spoiler",
	"a": "text_link", "code": "code", "pre": "pre", "blockquote": "blockquote", "tg-emoji": "custom_emoji",
}

var (
	tagPattern  = regexp.MustCompile(`^<(/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[a-zA-Z-]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>"']+))?)*)\s*>`)
	attrPattern = regexp.MustCompile(`([a-zA-Z-]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>"']+))?`)
	entityRefs  = regexp.MustCompile(`&(lt|gt|amp|quot|#[0-9]{1,7}|#x[0-9a-fA-F]{1,6});`)
)

// openTag is a tag waiting for its end tag.
type openTag struct {
	name   string
	entity Entity
	start  int // offset in the shown text, UTF-16 units
}

// ParseHTML reads text in Telegram's HTML parse mode, as strictly as
// Telegram: every <, > and & that is not part of a supported tag or entity
// is an error. It returns the text as shown and its entities, or the
// description of Telegram's 400 answer.
func ParseHTML(src string) (string, []Entity, error) {
	var out strings.Builder
	var units int // UTF-16 length of out
	var stack []openTag
	var entities []Entity
	fail := func(format string, args ...any) error {
		return fmt.Errorf("Bad Request: can't parse entities: "+format, args...)
	}
	for i := 0; i < len(src); {
		switch c := src[i]; c {
		case '<':
			m := tagPattern.FindStringSubmatch(src[i:])
			if m == nil {
				return "", nil, fail("Unsupported start tag at byte offset %d", i)
			}
			closing, name, attrs := m[1] == "/", strings.ToLower(m[2]), m[3]
			if closing {
				if len(stack) == 0 {
					return "", nil, fail("Unexpected end tag at byte offset %d", i)
				}
				top := stack[len(stack)-1]
				if top.name != name {
					return "", nil, fail("Unmatched end tag at byte offset %d, expected \"</%s>\", found \"</%s>\"", i, top.name, name)
				}
				stack = stack[:len(stack)-1]
				e := top.entity
				e.Offset, e.Length = top.start, units-top.start
				if e.Type == "code" && len(stack) > 0 && stack[len(stack)-1].name == "pre" {
					stack[len(stack)-1].entity.Language = e.Language // <pre><code class="language-x">
				} else if e.Length > 0 {
					entities = append(entities, e)
				}
			} else {
				typ, ok := tagEntity[name]
				if !ok {
					return "", nil, fail("Unsupported start tag \"%s\" at byte offset %d", name, i)
				}
				if n := len(stack); n > 0 && (stack[n-1].name == "code" || stack[n-1].name == "pre" && name != "code") {
					return "", nil, fail("Can't use tag \"%s\" inside \"%s\" at byte offset %d", name, stack[n-1].name, i)
				}
				if name == "blockquote" && strings.Contains(strings.ToLower(attrs), "expandable") {
					typ = "expandable_blockquote" // <blockquote expandable>
				}
				e := Entity{Type: typ}
				for _, a := range attrPattern.FindAllStringSubmatch(attrs, -1) {
					value := decodeEntities(strings.Trim(a[2], `"'`))
					switch strings.ToLower(a[1]) {
					case "href":
						e.URL = value
					case "class":
						if lang, ok := strings.CutPrefix(value, "language-"); ok {
							e.Language = lang
						}
					}
				}
				if typ == "text_link" && e.URL == "" {
					return "", nil, fail("Can't find href of the link at byte offset %d", i)
				}
				stack = append(stack, openTag{name: name, entity: e, start: units})
			}
			i += len(m[0])
		case '&':
			loc := entityRefs.FindStringIndex(src[i:])
			if loc == nil || loc[0] != 0 {
				return "", nil, fail("Character '&' is reserved and must be escaped at byte offset %d", i)
			}
			m := src[i : i+loc[1]]
			r := decodeEntities(m)
			out.WriteString(r)
			units += utf16Len(r)
			i += len(m)
		case '>':
			return "", nil, fail("Character '>' is reserved and must be escaped at byte offset %d", i)
		default:
			j := i + 1
			for j < len(src) && src[j] != '<' && src[j] != '&' && src[j] != '>' {
				j++
			}
			out.WriteString(src[i:j])
			units += utf16Len(src[i:j])
			i = j
		}
	}
	if len(stack) > 0 {
		return "", nil, fail("Can't find end tag corresponding to start tag \"%s\"", stack[len(stack)-1].name)
	}
	text := out.String()
	for i := range entities {
		entities[i].Text = utf16Slice(text, entities[i].Offset, entities[i].Length)
	}
	return text, entities, nil
}

// decodeEntities replaces the HTML entities Telegram understands.
func decodeEntities(s string) string {
	return entityRefs.ReplaceAllStringFunc(s, func(m string) string {
		switch name := m[1 : len(m)-1]; {
		case name == "lt":
			return "<"
		case name == "gt":
			return ">"
		case name == "amp":
			return "&"
		case name == "quot":
			return `"`
		case strings.HasPrefix(name, "#x"):
			n, _ := strconv.ParseInt(name[2:], 16, 32)
			return string(rune(n))
		default:
			n, _ := strconv.ParseInt(name[1:], 10, 32)
			return string(rune(n))
		}
	})
}

// utf16Len is the length of s as Telegram counts it.
func utf16Len(s string) int { return len(utf16.Encode([]rune(s))) }

func utf16Slice(s string, offset, length int) string {
	u := utf16.Encode([]rune(s))
	return string(utf16.Decode(u[offset : offset+length]))
}
