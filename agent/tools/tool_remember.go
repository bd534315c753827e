package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/memory"
)

// maxFactLength bounds one fact, in characters.
const maxFactLength = 500

// newRemember saves a long-term fact about the user: the facts are put into
// the system prompt of every turn, and outlive /new.
func newRemember(env Env) agent.Tool {
	return agent.Tool{
		Name: "remember",
		Description: "Saves a lasting fact about the user in your long-term memory, which you see on every turn, also after /new: " +
			"their name, preferences, plans, the people and things they care about. One short fact per call, in the third person " +
			"(\"Prefers tea to coffee\"). To correct or update a fact, pass its #id from the memory list in your instructions. " +
			"Never save passwords or other secrets.",
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"fact": map[string]any{"type": "string", "description": fmt.Sprintf("the fact, at most %d characters", maxFactLength)},
				"id":   map[string]any{"type": "integer", "description": "the #id of a saved fact to replace; leave out to add a new one"},
			},
			"required": []string{"fact"},
		},
		ConfirmAfterOutside: true,
		Run: func(ctx context.Context, turn *agent.TurnInfo, raw json.RawMessage) (string, error) {
			if !turn.Private() {
				return "", errFactsPrivate
			}
			var args struct {
				Fact string `json:"fact"`
				ID   int64  `json:"id"`
			}
			if err := agent.DecodeArgs(raw, &args); err != nil {
				return "", err
			}
			fact := strings.Join(strings.Fields(args.Fact), " ")
			switch {
			case fact == "":
				return "", errors.New("the fact is empty")
			case utf8.RuneCountInString(fact) > maxFactLength:
				return "", fmt.Errorf("the fact is longer than %d characters; save a shorter one, or several", maxFactLength)
			}
			f, err := env.Facts.Remember(ctx, turn.UserID, args.ID, fact, turn.UserMessageID)
			if errors.Is(err, memory.ErrNotFound) {
				return "", fmt.Errorf("this user has no fact #%d", args.ID)
			}
			if errors.Is(err, memory.ErrTooManyFacts) {
				return "", fmt.Errorf("the memory is full (%d facts); replace an outdated fact by its #id instead", memory.MaxFacts)
			}
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("Saved as #%d: %s", f.ID, f.Content), nil
		},
	}
}
