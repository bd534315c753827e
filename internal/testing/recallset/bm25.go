package recallset

import (
	"math"
	"sort"
	"strings"
	"unicode"
)

// BM25 ranks docs for query with plain Okapi BM25 (k1 1.2, b 0.75): words
// lowercased, no stemming, no stop words. It returns the indexes of the
// docs that share a word with the query, best first: the baseline the
// benchmark compares search_history with.
func BM25(docs []string, query string) []int {
	const k1, b = 1.2, 0.75
	toks := make([][]string, len(docs))
	df := map[string]int{}
	total := 0
	for i, d := range docs {
		toks[i] = words(d)
		total += len(toks[i])
		seen := map[string]bool{}
		for _, w := range toks[i] {
			if !seen[w] {
				seen[w] = true
				df[w]++
			}
		}
	}
	if len(docs) == 0 {
		return nil
	}
	avg := float64(total) / float64(len(docs))
	q := map[string]bool{}
	for _, w := range words(query) {
		q[w] = true
	}
	type scored struct {
		i int
		s float64
	}
	var out []scored
	for i, ts := range toks {
		tf := map[string]int{}
		for _, w := range ts {
			if q[w] {
				tf[w]++
			}
		}
		s := 0.0
		for w, f := range tf {
			idf := math.Log(1 + (float64(len(docs))-float64(df[w])+0.5)/(float64(df[w])+0.5))
			s += idf * float64(f) * (k1 + 1) / (float64(f) + k1*(1-b+b*float64(len(ts))/avg))
		}
		if s > 0 {
			out = append(out, scored{i, s})
		}
	}
	sort.SliceStable(out, func(x, y int) bool {
		if out[x].s != out[y].s {
			return out[x].s > out[y].s
		}
		return out[x].i > out[y].i // newer first on ties, as search_history
	})
	ids := make([]int, len(out))
	for k, o := range out {
		ids[k] = o.i
	}
	return ids
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}
