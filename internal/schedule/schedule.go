// Package schedule reads when a recurring task or reminder runs: a cron
// expression of five fields (github.com/robfig/cron/v3), or the few phrases
// a model writes most ("every weekday at 8:00", "every 2 hours"), which
// become one. Times are read in a time zone, daylight saving included.
package schedule

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// Schedule is a parsed schedule.
type Schedule struct {
	// Cron is the schedule as five cron fields: what is stored.
	Cron string
	loc  *time.Location
	spec cron.Schedule
}

// maxLen bounds what is read at all.
const maxLen = 100

// parser reads exactly five fields: no seconds, no descriptors (@every
// 1s), no CRON_TZ= (the time zone is the user's, not the text's).
var parser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow)

// Parse reads text, a cron expression of five fields or one of the phrases
// Words lists, in loc.
func Parse(text string, loc *time.Location) (Schedule, error) {
	text = strings.Join(strings.Fields(text), " ")
	switch {
	case text == "":
		return Schedule{}, errors.New("the schedule is empty")
	case len(text) > maxLen:
		return Schedule{}, fmt.Errorf("the schedule is longer than %d characters", maxLen)
	case strings.ContainsAny(text, "@=") || strings.Contains(strings.ToUpper(text), "TZ"):
		return Schedule{}, errors.New("write the schedule as five cron fields or in words, without a time zone or a descriptor")
	}
	expr, ok := fromWords(strings.ToLower(text))
	if !ok {
		if len(strings.Fields(text)) != 5 {
			return Schedule{}, fmt.Errorf("cannot read the schedule %q: write five cron fields (minute hour day-of-month month day-of-week, "+
				"as \"0 8 * * 1-5\") or %s", text, Words)
		}
		expr = text
	}
	spec, err := parser.Parse(expr)
	if err != nil {
		return Schedule{}, fmt.Errorf("cannot read the schedule %q: %v", text, err)
	}
	if loc == nil {
		loc = time.UTC
	}
	s := Schedule{Cron: expr, loc: loc, spec: spec}
	if s.Next(time.Now()).IsZero() {
		return Schedule{}, fmt.Errorf("the schedule %q never comes", text)
	}
	return s, nil
}

// Next is the first occurrence strictly after t (zero when there is none
// within five years, as for 30 February). When the clocks go back, the
// wall-clock time that comes twice runs once: the second coming is
// skipped. When they go forward, an occurrence whose wall-clock time does
// not exist that day runs as the clocks change, as cron runs it ("every
// day at 2:30" runs at 3:00 that day, not the next day only).
func (s Schedule) Next(t time.Time) time.Time {
	t = t.In(s.loc)
	next := s.spec.Next(t)
	if !next.IsZero() && s.repeats(next) {
		next = s.spec.Next(next)
	}
	if change, ok := s.skipped(t, next); ok {
		return change
	}
	return next
}

// skipped is the moment the clocks went forward between t and next, when
// a wall-clock time of the schedule fell in the time they skipped.
func (s Schedule) skipped(t, next time.Time) (time.Time, bool) {
	if next.IsZero() {
		return time.Time{}, false
	}
	_, from := t.Zone()
	_, to := next.Zone()
	if to <= from {
		return time.Time{}, false
	}
	// The first second at a later offset: t is before it, next after.
	lo, hi := t.Unix(), next.Unix()
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if _, off := time.Unix(mid, 0).In(s.loc).Zone(); off > from {
			hi = mid
		} else {
			lo = mid
		}
	}
	change := time.Unix(hi, 0).In(s.loc)
	_, after := change.Zone()
	// The skipped wall-clock times, read at the offset before the change.
	before := change.In(time.FixedZone("", from))
	at := s.spec.Next(before.Add(-time.Second))
	if at.IsZero() || !at.Before(before.Add(time.Duration(after-from)*time.Second)) || !change.Before(next) {
		return time.Time{}, false
	}
	return change, true
}

// repeats tells whether the wall-clock time of t came already, earlier,
// before the clocks went back.
func (s Schedule) repeats(t time.Time) bool {
	_, now := t.Zone()
	_, before := t.Add(-3 * time.Hour).Zone()
	if before <= now {
		return false
	}
	earlier := t.Add(-time.Duration(before-now) * time.Second)
	return earlier.Format("2006-01-02 15:04") == t.Format("2006-01-02 15:04")
}

// Gap is the shortest time between two of the next n occurrences after t:
// what the minimum interval is held to (a cron expression's occurrences
// need not be evenly spaced).
func (s Schedule) Gap(t time.Time, n int) time.Duration {
	prev := s.Next(t)
	gap := time.Duration(-1)
	for range n {
		next := s.Next(prev)
		if next.IsZero() {
			break
		}
		if d := next.Sub(prev); gap < 0 || d < gap {
			gap = d
		}
		prev = next
	}
	if gap < 0 { // a single occurrence in five years
		return 5 * 365 * 24 * time.Hour
	}
	return gap
}

// Words says which phrases Parse reads besides cron.
const Words = `"every day at HH:MM", "every weekday at HH:MM", "every weekend at HH:MM", "every monday at HH:MM" ` +
	`(any weekday, or several joined by commas or "and"), "every hour", "every N hours"`

var (
	atClock   = regexp.MustCompile(`^(.+?) at (\d{1,2})(?::(\d{2}))?$`)
	everyHour = regexp.MustCompile(`^every (?:(\d{1,2}) )?hours?$`)
)

var weekdays = map[string]string{
	"sunday": "0", "monday": "1", "tuesday": "2", "wednesday": "3", "thursday": "4", "friday": "5", "saturday": "6",
	"sun": "0", "mon": "1", "tue": "2", "wed": "3", "thu": "4", "fri": "5", "sat": "6",
}

// fromWords turns a phrase of Words into cron fields.
func fromWords(text string) (string, bool) {
	if m := everyHour.FindStringSubmatch(text); m != nil {
		if m[1] == "" || m[1] == "1" {
			return "0 * * * *", true
		}
		n, _ := strconv.Atoi(m[1])
		if n < 1 || n > 23 {
			return "", false
		}
		return "0 */" + m[1] + " * * *", true
	}
	m := atClock.FindStringSubmatch(text)
	if m == nil {
		return "", false
	}
	hour, _ := strconv.Atoi(m[2])
	minute := 0
	if m[3] != "" {
		minute, _ = strconv.Atoi(m[3])
	}
	if hour > 23 || minute > 59 {
		return "", false
	}
	days, ok := dayField(strings.TrimPrefix(m[1], "every "))
	if !ok || !strings.HasPrefix(m[1], "every ") {
		return "", false
	}
	return fmt.Sprintf("%d %d * * %s", minute, hour, days), true
}

// dayField is the day-of-week field of "day", "weekday", "monday and
// friday", ...
func dayField(text string) (string, bool) {
	switch text {
	case "day":
		return "*", true
	case "weekday":
		return "1-5", true
	case "weekend", "weekend day":
		return "0,6", true
	}
	var days []string
	for _, w := range strings.FieldsFunc(strings.ReplaceAll(text, " and ", ","), func(r rune) bool { return r == ',' || r == ' ' }) {
		d, ok := weekdays[strings.TrimSuffix(w, "s")]
		if !ok {
			d, ok = weekdays[w]
		}
		if !ok {
			return "", false
		}
		days = append(days, d)
	}
	return strings.Join(days, ","), len(days) > 0
}

// Stored reads a schedule as stored: its cron fields in the time zone
// named zone (fallback when zone is empty or unknown here).
func Stored(cron, zone string, fallback *time.Location) (Schedule, error) {
	loc := fallback
	if zone != "" {
		if l, err := time.LoadLocation(zone); err == nil {
			loc = l
		}
	}
	return Parse(cron, loc)
}
