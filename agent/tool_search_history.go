package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/membot/membot/memory"
)

// newSearchHistory finds earlier messages of the conversation, also those
// too old for the model's window: full-text search stemmed per language,
// fused with semantic search when an embeddings model is configured.
func newSearchHistory(env ToolEnv) Tool {
	return Tool{
		Name: "search_history",
		Description: "Searches the earlier messages of this conversation, including those too old for you to see, for key words " +
			"(any language; words match in any form, so \"cats\" finds \"cat\"" + semanticNote(env) + "). Returns the best matching snippets " +
			"with their date and time (" + env.Location.String() + "). Use it when the user refers to something said long ago.",
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"query": map[string]any{"type": "string", "description": "key words to look for"},
				"limit": map[string]any{"type": "integer", "description": "how many snippets, 1 to 10; 5 when left out"},
			},
			"required": []string{"query"},
		},
		Run: func(ctx context.Context, turn *TurnInfo, raw json.RawMessage) (string, error) {
			var args struct {
				Query string `json:"query"`
				Limit int    `json:"limit"`
			}
			if err := decodeArgs(raw, &args); err != nil {
				return "", err
			}
			if strings.TrimSpace(args.Query) == "" {
				return "", errors.New("the query is empty")
			}
			if args.Limit <= 0 || args.Limit > 10 {
				args.Limit = 5
			}
			q := memory.Search{ConversationID: turn.ConversationID, Text: args.Query, BeforeID: turn.UserMessageID, Limit: args.Limit}
			q.Embedding, q.EmbeddingModel = embedQuery(ctx, env.Embedder, args.Query, func(error) {}) // full-text alone then
			found, err := env.Store.SearchMessages(ctx, q)
			if err != nil {
				return "", err
			}
			if len(found) == 0 {
				return fmt.Sprintf("Nothing found for %q in the earlier messages of this conversation.", args.Query), nil
			}
			var b strings.Builder
			fmt.Fprintf(&b, "%d matching messages, best first (matches «marked»):", len(found))
			for _, s := range found {
				fmt.Fprintf(&b, "\n[%s] %s: %s", s.CreatedAt.In(env.Location).Format("2006-01-02 15:04"), s.Role, s.Text)
			}
			return b.String(), nil
		},
	}
}
