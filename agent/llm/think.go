package llm

import "strings"

// segment is a piece of content after separating thinking from the answer.
type segment struct {
	text      string
	reasoning bool
	reset     bool // everything given as answer so far was thinking
}

var (
	openTags  = []string{"<think>", "<thought>"}
	closeTags = []string{"</think>", "</thought>"}
)

// thinkSplitter takes <think>…</think> and <thought>…</thought> blocks out
// of a content stream, which may split a tag between chunks. An opening
// tag counts only before any answer text; a closing tag without one (the
// chat template opened the block in the prompt) counts only as the first
// tag of the answer, and turns what came before it into thinking.
type thinkSplitter struct {
	pending string // the tail of the last chunk that may begin a tag
	inside  bool   // within a thinking block
	tagged  bool   // a tag was seen
	visible bool   // answer text was given
}

func (t *thinkSplitter) feed(s string) []segment {
	text := t.pending + s
	t.pending = ""
	var out []segment
	for text != "" {
		if t.inside {
			i, n := firstTag(text, closeTags)
			if i < 0 {
				keep := tagPrefixTail(text, closeTags)
				out = appendSeg(out, segment{text: text[:len(text)-keep], reasoning: true})
				t.pending = text[len(text)-keep:]
				return out
			}
			out = appendSeg(out, segment{text: text[:i], reasoning: true})
			t.inside, text = false, text[i+n:]
			continue
		}
		if !t.visible {
			trimmed := strings.TrimLeft(text, " \t\r\n")
			if !t.tagged {
				if tag := hasPrefixOf(trimmed, openTags); tag != "" {
					t.inside, t.tagged, text = true, true, trimmed[len(tag):]
					continue
				}
				if isPrefixOfAny(trimmed, openTags) {
					t.pending = text
					return out
				}
			}
			text = trimmed
			if text == "" {
				return out
			}
		}
		if !t.tagged {
			if i, n := firstTag(text, closeTags); i >= 0 {
				out = appendSeg(out, segment{text: text[:i], reasoning: true})
				out = append([]segment{{reset: true}}, out...)
				t.tagged, t.visible, text = true, false, text[i+n:]
				continue
			}
		}
		keep := 0
		if !t.tagged {
			keep = tagPrefixTail(text, closeTags)
		}
		if seg := text[:len(text)-keep]; seg != "" {
			out = appendSeg(out, segment{text: seg})
			t.visible = true
		}
		t.pending = text[len(text)-keep:]
		return out
	}
	return out
}

// flush gives what was held back at the end of the answer.
func (t *thinkSplitter) flush() []segment {
	text := t.pending
	t.pending = ""
	if t.inside {
		return appendSeg(nil, segment{text: text, reasoning: true})
	}
	if !t.visible {
		text = strings.TrimLeft(text, " \t\r\n")
	}
	return appendSeg(nil, segment{text: text})
}

func appendSeg(out []segment, s segment) []segment {
	if s.text == "" && !s.reset {
		return out
	}
	return append(out, s)
}

// firstTag finds the earliest of tags in s: its index and length.
func firstTag(s string, tags []string) (int, int) {
	best, n := -1, 0
	for _, tag := range tags {
		if i := strings.Index(s, tag); i >= 0 && (best < 0 || i < best) {
			best, n = i, len(tag)
		}
	}
	return best, n
}

func hasPrefixOf(s string, tags []string) string {
	for _, tag := range tags {
		if strings.HasPrefix(s, tag) {
			return tag
		}
	}
	return ""
}

// isPrefixOfAny reports whether s is the beginning of one of tags.
func isPrefixOfAny(s string, tags []string) bool {
	for _, tag := range tags {
		if strings.HasPrefix(tag, s) {
			return true
		}
	}
	return false
}

// tagPrefixTail is the length of the longest tail of s that begins one of tags.
func tagPrefixTail(s string, tags []string) int {
	for k := min(len(s), 10); k > 0; k-- {
		if isPrefixOfAny(s[len(s)-k:], tags) {
			return k
		}
	}
	return 0
}
