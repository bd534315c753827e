package recallset

import (
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// Entry is one message as search_history's result and the prompt's
// auto-recalled section show it: "[2006-01-02 15:04] role: text", the text
// possibly several lines, cut to fragments or truncated.
type Entry struct {
	Role, Text string
}

var entryRE = regexp.MustCompile(`^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}\] (user|assistant): `)

// Entries parses the messages of a result or a prompt section, in their
// order. Lines before the first message (a header) are left out; a line
// that starts no message continues the one before it.
func Entries(s string) []Entry {
	var out []Entry
	for _, line := range strings.Split(s, "\n") {
		if m := entryRE.FindStringSubmatch(line); m != nil {
			out = append(out, Entry{Role: m[1], Text: line[len(m[0]):]})
		} else if len(out) > 0 {
			out[len(out)-1].Text += "\n" + line
		}
	}
	for i := range out {
		out[i].Text = strings.NewReplacer("«", "", "»", "").Replace(out[i].Text)
	}
	return out
}

// Long messages are shown in part: search_history cuts those over 400
// characters (its stored content, with the stamp) to fragments joined by
// " … ", auto-recall truncates each to 600 bytes.
const (
	longTurn     = 350 // runes of text: shown in part by search_history
	minFragments = 40  // runes of fragments that identify a long turn
)

// Holds tells whether the entry shows turn: the whole of it, or, for a
// long turn, fragments of it that together are long enough to tell it
// from another.
func (e Entry) Holds(turn string) bool {
	if e.Text == turn {
		return true
	}
	if utf8.RuneCountInString(turn) <= longTurn && len(e.Text) < 600 {
		return false
	}
	total := 0
	for _, f := range strings.Split(e.Text, "…") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !strings.Contains(turn, f) {
			return false
		}
		total += utf8.RuneCountInString(f)
	}
	return total >= minFragments
}

// Shows tells whether one of the first k entries holds turn (k <= 0: any).
func Shows(entries []Entry, turn string, k int) bool {
	for i, e := range entries {
		if k > 0 && i >= k {
			break
		}
		if e.Holds(turn) {
			return true
		}
	}
	return false
}

// Recall is the share of the evidence turns that the first k entries
// show.
func Recall(entries []Entry, evidence []string, k int) float64 {
	found := 0
	for _, e := range evidence {
		if Shows(entries, e, k) {
			found++
		}
	}
	return float64(found) / float64(len(evidence))
}

// RankRecall is the share of evidence among the first k of ranked (k <= 0:
// all of it), both indexes into the same rows.
func RankRecall(ranked, evidence []int, k int) float64 {
	if k > 0 && len(ranked) > k {
		ranked = ranked[:k]
	}
	in := map[int]bool{}
	for _, r := range ranked {
		in[r] = true
	}
	found := 0
	for _, e := range evidence {
		if in[e] {
			found++
		}
	}
	return float64(found) / float64(len(evidence))
}

// Fit is the longest head of ranked whose rows, each shown as lines[i] on
// a line of its own, hold at most budget characters: what a ranking gives
// a reader of that many characters.
func Fit(lines []string, ranked []int, budget int) []int {
	used := 0
	for n, i := range ranked {
		used += utf8.RuneCountInString(lines[i]) + 1
		if used > budget {
			return ranked[:n]
		}
	}
	return ranked
}

// Median is the middle value of xs (the lower of the two middle ones), 0
// for none.
func Median(xs []int) int {
	if len(xs) == 0 {
		return 0
	}
	s := append([]int(nil), xs...)
	sort.Ints(s)
	return s[(len(s)-1)/2]
}
