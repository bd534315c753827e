package agent

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/membot/membot/agent/llm"
	"github.com/membot/membot/internal/redact"
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

// OpenAIEmbedder is an Embedder over the OpenAI embeddings API.
type OpenAIEmbedder struct {
	client *openai.Client
	model  string
	apiKey string // taken out of every error: a server may echo it back
}

// NewEmbedder returns an embedder of model at baseURL (".../v1").
func NewEmbedder(baseURL, apiKey, model string, hc *http.Client) *OpenAIEmbedder {
	cfg := openai.DefaultConfig(apiKey)
	cfg.BaseURL = baseURL
	bounded := &http.Client{}
	if hc != nil {
		*bounded = *hc
	}
	bounded.Transport = llm.BoundedBodies(bounded.Transport, maxEmbeddingsBody)
	cfg.HTTPClient = bounded
	return &OpenAIEmbedder{client: openai.NewClientWithConfig(cfg), model: model, apiKey: apiKey}
}

// maxEmbeddingsBody bounds an embeddings answer: 64 vectors of 8,192
// dimensions written out in JSON stay well under it.
const maxEmbeddingsBody = 32 << 20

// Model is the embeddings model's name.
func (e *OpenAIEmbedder) Model() string { return e.model }

// maxEmbeddingDims bounds the vectors a server may send back.
const maxEmbeddingDims = 8192

// Embed returns one vector per text, in order.
func (e *OpenAIEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, Usage, error) {
	resp, err := e.client.CreateEmbeddings(ctx, openai.EmbeddingRequestStrings{Input: texts, Model: openai.EmbeddingModel(e.model)})
	if err != nil {
		return nil, Usage{}, redact.Error(fmt.Errorf("embeddings: %w", err), redact.Mark, e.apiKey)
	}
	out := make([][]float32, len(texts))
	dims := 0
	for _, d := range resp.Data {
		n := len(d.Embedding)
		switch {
		case d.Index < 0 || d.Index >= len(texts):
			return nil, Usage{}, fmt.Errorf("embeddings: the server answered for input %d of %d", d.Index, len(texts))
		case n == 0 || n > maxEmbeddingDims || (dims != 0 && n != dims):
			return nil, Usage{}, fmt.Errorf("embeddings: the server sent a vector of %d dimensions", n)
		}
		dims = n
		out[d.Index] = d.Embedding
	}
	for i, v := range out {
		if v == nil {
			return nil, Usage{}, fmt.Errorf("embeddings: the server sent no vector for input %d", i)
		}
	}
	return out, Usage{PromptTokens: resp.Usage.PromptTokens}, nil
}

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
	vecs, _, err := e.Embed(ctx, []string{truncate(text, maxEmbeddedQuery)})
	if err != nil {
		onErr(err)
		return nil, ""
	}
	return vecs[0], e.Model()
}

// maxEmbeddedQuery bounds the text of a query sent to the embeddings model.
const maxEmbeddedQuery = 2000
