package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/internal/timephrase"
	"github.com/membot/membot/memory"
)

// maxSearchQueries bounds the queries of one search_history call.
const maxSearchQueries = 5

// newSearchHistory finds earlier messages of the conversation, also those
// too old for the model's window: full-text search stemmed per language,
// fused with semantic search when an embeddings model is configured. Each
// found message comes with the messages next to it (a question and its
// answer, the turns of an exchange) while the result fits in 400
// characters a message asked for; a time the query names ("last May",
// "вчера") puts the messages written then first.
func newSearchHistory(env Env) agent.Tool {
	return agent.Tool{
		Name: "search_history",
		Description: "Searches the earlier messages of this conversation, including those too old for you to see, for key words " +
			"(any language; words match in any form, so \"cats\" finds \"cat\"" + semanticNote(env) + "). Returns the best matching messages, " +
			"each with the ones around it, with their date and time (" + env.Location.String() + "). A time in the query " +
			"(\"last May\", \"in 2023\", \"yesterday\") puts messages written then first. Use it when the user refers to something said long ago.",
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"query": map[string]any{"type": "string", "description": "key words to look for"},
				"queries": map[string]any{"type": "array", "items": map[string]any{"type": "string"},
					"description": "more ways to say it (other key words, synonyms, names), searched together with query; up to 4"},
				"limit": map[string]any{"type": "integer", "description": "how many messages found, 1 to 10; 5 when left out"},
			},
			"required": []string{"query"},
		},
		// The earlier messages found may be a file's text, a forwarded
		// message or a page the model quoted: not the user's words.
		Outside: true,
		Run: func(ctx context.Context, turn *agent.TurnInfo, raw json.RawMessage) (string, error) {
			var args struct {
				Query   string   `json:"query"`
				Queries []string `json:"queries"`
				Limit   int      `json:"limit"`
			}
			if err := agent.DecodeArgs(raw, &args); err != nil {
				return "", err
			}
			if strings.TrimSpace(args.Query) == "" {
				return "", errors.New("the query is empty")
			}
			if args.Limit <= 0 || args.Limit > 10 {
				args.Limit = 5
			}
			if len(args.Queries) > maxSearchQueries-1 {
				args.Queries = args.Queries[:maxSearchQueries-1]
			}
			q := memory.Search{ConversationID: turn.ConversationID, BeforeID: turn.UserMessageID, Limit: args.Limit}
			q.Text, q.From, q.To = withoutTime(args.Query, env)
			for _, extra := range args.Queries {
				text, from, to := withoutTime(extra, env)
				if q.To.IsZero() {
					q.From, q.To = from, to
				}
				q.Queries = append(q.Queries, text)
			}
			q.Embedding, q.EmbeddingModel = agent.EmbedQuery(ctx, env.Embedder, args.Query, func(error) {}) // full-text alone then
			found, err := env.History.SearchMessages(ctx, q)
			if err != nil {
				return "", err
			}
			if len(found) == 0 {
				return fmt.Sprintf("Nothing found for %q in the earlier messages of this conversation.", args.Query), nil
			}
			hits := 0
			for _, s := range found {
				if s.Hit > 0 {
					hits++
				}
			}
			var b strings.Builder
			fmt.Fprintf(&b, "%d matching messages (matches «marked»), each with the messages around it; best first, "+
				"oldest first around each:", hits)
			for _, s := range found {
				b.WriteString("\n" + agent.RecalledLine(s, env.Location))
			}
			return b.String(), nil
		},
	}
}

// withoutTime is query without the time it names, if any, and that time
// in the user's zone ([from, to); to zero when none). A query that was
// only a time stays whole.
func withoutTime(query string, env Env) (string, time.Time, time.Time) {
	span, ok := timephrase.Find(query, env.Now().In(env.Location))
	if !ok {
		return query, time.Time{}, time.Time{}
	}
	if strings.TrimSpace(span.Rest) == "" {
		span.Rest = query
	}
	return span.Rest, span.From, span.To
}
