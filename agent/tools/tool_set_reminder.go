package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/memory"
)

const (
	maxReminderText  = 1000
	maxReminderAhead = 10 * 366 * 24 * time.Hour
)

// newSetReminder stores a reminder that the bot's scheduler sends to the
// chat when it is due.
func newSetReminder(env Env) agent.Tool {
	zone := env.Location.String()
	return agent.Tool{
		Name: "set_reminder",
		Description: "Sets a reminder: at the given time the bot sends the text to this chat. Give either \"at\", a date and time " +
			"in " + zone + " (\"2026-03-08 09:00\", or just \"18:30\" for the next such time), or \"in\", a duration from now " +
			"(\"45m\", \"2h30m\", \"3d\", \"1w\"). The user sees their reminders with /reminders.",
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"text": map[string]any{"type": "string", "description": "what to remind of, as the user should read it"},
				"at":   map[string]any{"type": "string", "description": "YYYY-MM-DD HH:MM or HH:MM in " + zone + ", or RFC 3339 with an offset"},
				"in":   map[string]any{"type": "string", "description": "a duration such as 10m, 1h30m, 2d, 1w"},
			},
			"required": []string{"text"},
		},
		// A reminder is sent to the chat later: a page must not make the bot
		// say its words then.
		ConfirmAfterOutside: true,
		Run: func(ctx context.Context, turn *agent.TurnInfo, raw json.RawMessage) (string, error) {
			var args struct {
				Text string `json:"text"`
				At   string `json:"at"`
				In   string `json:"in"`
			}
			if err := agent.DecodeArgs(raw, &args); err != nil {
				return "", err
			}
			text := strings.TrimSpace(args.Text)
			switch {
			case text == "":
				return "", errors.New("the reminder's text is empty")
			case utf8.RuneCountInString(text) > maxReminderText:
				return "", fmt.Errorf("the text is longer than %d characters", maxReminderText)
			}
			now := env.Now()
			due, err := dueTime(strings.TrimSpace(args.At), strings.TrimSpace(args.In), now, env.Location)
			if err != nil {
				return "", err
			}
			if due.Sub(now) < env.ReminderMinLead {
				return "", fmt.Errorf("a reminder must be at least %v ahead", env.ReminderMinLead)
			}
			id, err := env.Reminders.AddReminder(ctx, memory.Reminder{UserID: turn.UserID, ChatID: turn.Chat.ID, ThreadID: turn.Chat.Thread, Text: text,
				DueAt: due, SourceMessageID: turn.UserMessageID})
			if errors.Is(err, memory.ErrTooManyReminders) {
				return "", fmt.Errorf("no more reminders now: at most %d may wait for a user or a chat, and %d be set in a chat an hour; "+
					"the user can see and cancel theirs with /reminders", memory.MaxPendingReminders, memory.MaxRemindersPerHour)
			}
			if err != nil {
				return "", err
			}
			if env.ReminderAdded != nil {
				env.ReminderAdded(due)
			}
			local := due.In(env.Location)
			return fmt.Sprintf("Reminder #%d set for %s, %s (%s), in %s.", id, local.Format("2006-01-02 15:04"),
				local.Weekday(), zone, due.Sub(now).Round(time.Second)), nil
		},
	}
}

// dueTime works out when a reminder is due from either at (a wall-clock time
// in loc, or RFC 3339) or in (a duration from now).
func dueTime(at, in string, now time.Time, loc *time.Location) (time.Time, error) {
	var due time.Time
	switch {
	case at != "" && in != "":
		return due, errors.New(`give either "at" or "in", not both`)
	case in != "":
		d, err := parseDuration(in)
		if err != nil {
			return due, err
		}
		due = now.Add(d)
	case at != "":
		var err error
		if due, err = parseAt(at, now, loc); err != nil {
			return due, err
		}
	default:
		return due, errors.New(`say when: "at" (a time) or "in" (a duration)`)
	}
	switch {
	case !due.After(now):
		return due, fmt.Errorf("%s is not in the future; it is now %s", due.In(loc).Format("2006-01-02 15:04"), now.In(loc).Format("2006-01-02 15:04"))
	case due.Sub(now) > maxReminderAhead:
		return due, errors.New("that is more than ten years ahead")
	}
	return due, nil
}

// parseAt reads a date and time in loc ("2026-03-08 09:00", also with T or
// seconds), a time of day ("18:30": today, or tomorrow when it has passed),
// or RFC 3339 with its own offset.
func parseAt(s string, now time.Time, loc *time.Location) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	for _, layout := range []string{"2006-01-02 15:04", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02T15:04:05"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	for _, layout := range []string{"15:04", "15:04:05"} {
		if clock, err := time.Parse(layout, s); err == nil {
			today := now.In(loc)
			t := time.Date(today.Year(), today.Month(), today.Day(), clock.Hour(), clock.Minute(), clock.Second(), 0, loc)
			if !t.After(now) {
				t = t.AddDate(0, 0, 1)
			}
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("cannot read the time %q; write it as YYYY-MM-DD HH:MM or HH:MM", s)
}

// durationUnits are the units parseDuration knows.
var durationUnits = map[string]time.Duration{
	"s": time.Second, "sec": time.Second, "m": time.Minute, "min": time.Minute,
	"h": time.Hour, "d": 24 * time.Hour, "w": 7 * 24 * time.Hour,
}

// parseDuration reads durations like 45m, 2h30m, 1.5h, 3d, 1w2d, "2 h 30 m".
func parseDuration(s string) (time.Duration, error) {
	rest := strings.ToLower(strings.ReplaceAll(s, " ", ""))
	bad := fmt.Errorf("cannot read the duration %q; write it like 45m, 2h30m, 3d or 1w", s)
	if rest == "" {
		return 0, bad
	}
	var total time.Duration
	for rest != "" {
		i := strings.IndexFunc(rest, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
		if i <= 0 {
			return 0, bad
		}
		n, err := strconv.ParseFloat(rest[:i], 64)
		if err != nil {
			return 0, bad
		}
		rest = rest[i:]
		j := strings.IndexFunc(rest, func(r rune) bool { return (r >= '0' && r <= '9') || r == '.' })
		if j < 0 {
			j = len(rest)
		}
		unit, ok := durationUnits[rest[:j]]
		if !ok || n*float64(unit) > float64(maxReminderAhead) {
			return 0, bad
		}
		total += time.Duration(n * float64(unit))
		rest = rest[j:]
	}
	return total, nil
}
