package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/membot/membot/agent"
)

// newCurrentTime tells the time in the bot's zone or in an IANA zone the
// model names.
func newCurrentTime(env Env) agent.Tool {
	return agent.Tool{
		Name:        "current_time",
		Description: "Returns the current date, time and weekday. Without arguments in the bot's own time zone (" + env.Location.String() + "), or in the IANA time zone given, e.g. \"Asia/Tokyo\".",
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"timezone": map[string]any{"type": "string", "description": "IANA time zone name; optional"},
			},
		},
		Run: func(_ context.Context, _ *agent.TurnInfo, raw json.RawMessage) (string, error) {
			var args struct {
				Timezone string `json:"timezone"`
			}
			if err := agent.DecodeArgs(raw, &args); err != nil {
				return "", err
			}
			loc := env.Location
			if args.Timezone != "" {
				var err error
				if loc, err = time.LoadLocation(args.Timezone); err != nil {
					return "", fmt.Errorf("unknown time zone %q; use an IANA name such as Europe/Berlin", args.Timezone)
				}
			}
			now := env.Now().In(loc)
			return fmt.Sprintf("%s %s (%s, UTC%s)", now.Format("2006-01-02 15:04:05"), now.Weekday(), loc, now.Format("-07:00")), nil
		},
	}
}
