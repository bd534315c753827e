// Package timephrase finds a time named in a query ("yesterday", "last
// May", "in 2023", "two years ago", "вчера", "в прошлом мае", "два года
// назад") and resolves it to a span of the calendar in the user's zone,
// so that a search can prefer the messages written then.
package timephrase

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Span is a time named in a query: [From, To) in the user's zone, and the
// query without the words that named it.
type Span struct {
	From, To time.Time
	Rest     string
}

// maxQuery bounds the text looked at (a query is a few words).
const maxQuery = 1000

// English month names and abbreviations; Russian month stems, which every
// case of a month's name starts with ("ма" after "март").
var (
	enMonths = map[string]time.Month{"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
		"august": 8, "september": 9, "october": 10, "november": 11, "december": 12, "jan": 1, "feb": 2, "mar": 3, "apr": 4,
		"jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12}
	ruMonths = []string{"январ", "феврал", "март", "апрел", "июн", "июл", "август", "сентябр", "октябр", "ноябр", "декабр", "ма"}
	ruMonthN = []time.Month{1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 5}
)

// Russian month words: the stem and a case ending (мая, мае, май; марте).
const ruMonth = `(январ[ьяе]|феврал[ьяе]|марта?|марте|апрел[ьяе]|ма[йяе]|июн[ьяе]|июл[ьяе]|августа?|августе|сентябр[ьяе]|октябр[ьяе]|ноябр[ьяе]|декабр[ьяе])`
const enMonth = `(january|february|march|april|may|june|july|august|september|sept|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|oct|nov|dec)`

var numbers = map[string]int{"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
	"eight": 8, "nine": 9, "ten": 10, "couple": 2, "few": 3,
	"один": 1, "одну": 1, "два": 2, "две": 2, "три": 3, "четыре": 4, "пять": 5, "шесть": 6, "семь": 7, "восемь": 8,
	"девять": 9, "десять": 10, "пару": 2, "несколько": 3}

// The patterns, tried in order; the first that matches names the span.
var patterns = []struct {
	re   *regexp.Regexp
	span func(m []string, now time.Time) (time.Time, time.Time, bool)
}{
	{regexp.MustCompile(`(?i)\b(?:in |of |from )?` + enMonth + `\.? (?:of )?((?:19|20)\d\d)\b`), func(m []string, now time.Time) (time.Time, time.Time, bool) {
		return monthOf(now, monthNamed(m[1]), atoi(m[2]))
	}},
	{regexp.MustCompile(`(?i)(?:^|\s)(?:в |во )?` + ruMonth + ` ((?:19|20)\d\d)(?: год[ау]?)?`), func(m []string, now time.Time) (time.Time, time.Time, bool) {
		return monthOf(now, monthNamed(m[1]), atoi(m[2]))
	}},
	{regexp.MustCompile(`(?i)(?:^|\s)(?:в|во) ((?:19|20)\d\d)(?:\s*г\.|\s+год[ауе]?)?`), func(m []string, now time.Time) (time.Time, time.Time, bool) {
		y := atoi(m[1])
		return date(now, y, 1, 1), date(now, y+1, 1, 1), true
	}},
	{regexp.MustCompile(`(?i)\b(?:in |during |from )?(?:the year )?((?:19|20)\d\d)\b`), func(m []string, now time.Time) (time.Time, time.Time, bool) {
		y := atoi(m[1])
		return date(now, y, 1, 1), date(now, y+1, 1, 1), true
	}},
	{regexp.MustCompile(`(?i)\b(\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|couple of|few) (day|week|month|year)s? ago\b`),
		func(m []string, now time.Time) (time.Time, time.Time, bool) {
			return ago(now, count(m[1]), m[2])
		}},
	{regexp.MustCompile(`(?i)(?:^|\s)(\d+|один|одну|два|две|три|четыре|пять|шесть|семь|восемь|девять|десять|пару|несколько)?\s*(день|дня|дней|сутки|недел[юиь]|месяц[аев]*|год[а]?|лет) назад`),
		func(m []string, now time.Time) (time.Time, time.Time, bool) {
			var unit string
			switch {
			case strings.HasPrefix(m[2], "д") || strings.HasPrefix(m[2], "с"):
				unit = "day"
			case strings.HasPrefix(m[2], "н"):
				unit = "week"
			case strings.HasPrefix(m[2], "м"):
				unit = "month"
			default:
				unit = "year"
			}
			return ago(now, count(m[1]), unit)
		}},
	{regexp.MustCompile(`(?i)\b(?:the )?day before yesterday\b|(?:^|\s)позавчера`), func(_ []string, now time.Time) (time.Time, time.Time, bool) {
		return ago(now, 2, "day")
	}},
	{regexp.MustCompile(`(?i)\byesterday\b|(?:^|\s)вчера`), func(_ []string, now time.Time) (time.Time, time.Time, bool) {
		return ago(now, 1, "day")
	}},
	{regexp.MustCompile(`(?i)\btoday\b|(?:^|\s)сегодня`), func(_ []string, now time.Time) (time.Time, time.Time, bool) {
		return ago(now, 0, "day")
	}},
	{regexp.MustCompile(`(?i)\blast (week|month|year)\b|(?:^|\s)(?:на )?прошл(?:ой|ом|ый|ая|ую|ого) (недел[еию]|месяц[еа]?|год[ау]?)`),
		func(m []string, now time.Time) (time.Time, time.Time, bool) {
			unit := strings.ToLower(m[1])
			if unit == "" {
				unit = "week"
				if strings.HasPrefix(m[2], "м") {
					unit = "month"
				} else if strings.HasPrefix(m[2], "г") {
					unit = "year"
				}
			}
			return ago(now, 1, unit)
		}},
	{regexp.MustCompile(`(?i)\b(?:this|current) (week|month|year)\b`), func(m []string, now time.Time) (time.Time, time.Time, bool) {
		return ago(now, 0, strings.ToLower(m[1]))
	}},
	{regexp.MustCompile(`(?i)\b(?:last|in|during|this past) ` + enMonth + `\b`), func(m []string, now time.Time) (time.Time, time.Time, bool) {
		return lastMonthNamed(now, monthNamed(m[1]), strings.HasPrefix(strings.ToLower(m[0]), "last"))
	}},
	{regexp.MustCompile(`(?i)(?:^|\s)(?:в |во )?прошл(?:ом|ого|ый) ` + ruMonth), func(m []string, now time.Time) (time.Time, time.Time, bool) {
		return lastMonthNamed(now, monthNamed(m[1]), true)
	}},
	{regexp.MustCompile(`(?i)(?:^|\s)(?:в|во) ` + ruMonth + `(?:$|\s|[,.?!])`), func(m []string, now time.Time) (time.Time, time.Time, bool) {
		return lastMonthNamed(now, monthNamed(m[1]), false)
	}},
}

// Find returns the span the first time phrase of query names, now being
// the time of the question in the user's zone; ok is false when it names
// none.
func Find(query string, now time.Time) (span Span, ok bool) {
	if len(query) > maxQuery {
		return Span{}, false
	}
	for _, p := range patterns {
		loc := p.re.FindStringSubmatchIndex(query)
		if loc == nil {
			continue
		}
		m := make([]string, len(loc)/2)
		for i := range m {
			if loc[2*i] >= 0 {
				m[i] = strings.ToLower(query[loc[2*i]:loc[2*i+1]])
			}
		}
		from, to, good := p.span(m, now)
		if !good || !from.Before(now) {
			continue // a time still to come is not when anything was written
		}
		rest := strings.Join(strings.Fields(query[:loc[0]]+" "+query[loc[1]:]), " ")
		return Span{From: from, To: to, Rest: rest}, true
	}
	return Span{}, false
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// count reads a number of units: digits or a word.
func count(s string) int {
	s = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(s)), " of")
	if s == "" {
		return 1 // "год назад", "неделю назад"
	}
	if n, ok := numbers[s]; ok {
		return n
	}
	if n := atoi(s); n > 0 && n < 1000 {
		return n
	}
	return 1
}

func monthNamed(s string) time.Month {
	s = strings.ToLower(strings.TrimSuffix(s, "."))
	if m, ok := enMonths[s]; ok {
		return m
	}
	for i, stem := range ruMonths {
		if strings.HasPrefix(s, stem) {
			return ruMonthN[i]
		}
	}
	return 0
}

func date(now time.Time, y int, m time.Month, d int) time.Time {
	return time.Date(y, m, d, 0, 0, 0, 0, now.Location())
}

func monthOf(now time.Time, m time.Month, y int) (time.Time, time.Time, bool) {
	if m == 0 || y == 0 {
		return time.Time{}, time.Time{}, false
	}
	from := date(now, y, m, 1)
	return from, from.AddDate(0, 1, 0), true
}

// lastMonthNamed is the newest month m that has begun ("in May"), or
// that has ended ("last May": in May, last year's).
func lastMonthNamed(now time.Time, m time.Month, ended bool) (time.Time, time.Time, bool) {
	if m == 0 {
		return time.Time{}, time.Time{}, false
	}
	y := now.Year()
	if m > now.Month() || ended && m == now.Month() {
		y--
	}
	return monthOf(now, m, y)
}

// ago is the day, week (from Monday), month or year n of them before now's.
func ago(now time.Time, n int, unit string) (time.Time, time.Time, bool) {
	today := date(now, now.Year(), now.Month(), now.Day())
	switch unit {
	case "day":
		from := today.AddDate(0, 0, -n)
		return from, from.AddDate(0, 0, 1), true
	case "week":
		monday := today.AddDate(0, 0, -((int(today.Weekday()) + 6) % 7))
		from := monday.AddDate(0, 0, -7*n)
		return from, from.AddDate(0, 0, 7), true
	case "month":
		from := date(now, now.Year(), now.Month(), 1).AddDate(0, -n, 0)
		return from, from.AddDate(0, 1, 0), true
	case "year":
		from := date(now, now.Year()-n, 1, 1)
		return from, from.AddDate(1, 0, 0), true
	}
	return time.Time{}, time.Time{}, false
}
