package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/memory"
)

// newForget deletes one of the user's long-term facts.
func newForget(env Env) agent.Tool {
	return agent.Tool{
		Name: "forget",
		Description: "Deletes a fact from your long-term memory of this user, by its #id from the memory list in your instructions: " +
			"when the user asks you to forget it, or it is no longer true.",
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"id": map[string]any{"type": "integer", "description": "the fact's #id"},
			},
			"required": []string{"id"},
		},
		ConfirmAfterOutside: true,
		Run: func(ctx context.Context, turn *agent.TurnInfo, raw json.RawMessage) (string, error) {
			if !turn.Private() {
				return "", errFactsPrivate
			}
			var args struct {
				ID int64 `json:"id"`
			}
			if err := agent.DecodeArgs(raw, &args); err != nil {
				return "", err
			}
			f, err := env.Facts.ForgetFact(ctx, turn.UserID, args.ID)
			if errors.Is(err, memory.ErrNotFound) {
				return "", fmt.Errorf("this user has no fact #%d", args.ID)
			}
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("Forgot #%d: %s", f.ID, f.Content), nil
		},
	}
}
