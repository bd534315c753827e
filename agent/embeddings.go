package agent

import (
	"context"
	"strings"
	"time"
)

// Embedder turns texts into vectors: an OpenAI-compatible /v1/embeddings
// (EMBEDDINGS_MODEL). The vectors make recall semantic ("trip" finds
// "travelled").
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, Usage, error)
	Model() string
}

// Usage is the tokens a call to a model server cost.
type Usage struct{ PromptTokens, CompletionTokens int }

// queryEmbedTimeout bounds embedding a query on the way of a reply: past
// it, recall goes on with full-text search alone.
const queryEmbedTimeout = 3 * time.Second

// EmbedQuery embeds a search's text with e, when there is one; a failure
// leaves the search full-text (nil), and is told to onErr.
func EmbedQuery(ctx context.Context, e Embedder, text string, onErr func(error)) ([]float32, string) {
	if e == nil || strings.TrimSpace(text) == "" {
		return nil, ""
	}
	ctx, cancel := context.WithTimeout(ctx, queryEmbedTimeout)
	defer cancel()
	vecs, _, err := e.Embed(ctx, []string{Truncate(text, maxEmbeddedQuery)})
	if err != nil {
		onErr(err)
		return nil, ""
	}
	return vecs[0], e.Model()
}

// maxEmbeddedQuery bounds the text of a query sent to the embeddings model.
const maxEmbeddedQuery = 2000
