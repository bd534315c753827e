package memorize

import (
	"context"
	"fmt"
	"net/http"

	"github.com/membot/membot/agent"
	"github.com/membot/membot/agent/llm"
	"github.com/membot/membot/internal/redact"
	"github.com/sashabaranov/go-openai"
)

// OpenAIEmbedder is an agent.Embedder over the OpenAI embeddings API.
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
func (e *OpenAIEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, agent.Usage, error) {
	resp, err := e.client.CreateEmbeddings(ctx, openai.EmbeddingRequestStrings{Input: texts, Model: openai.EmbeddingModel(e.model)})
	if err != nil {
		return nil, agent.Usage{}, redact.Error(fmt.Errorf("embeddings: %w", err), redact.Mark, e.apiKey)
	}
	out := make([][]float32, len(texts))
	dims := 0
	for _, d := range resp.Data {
		n := len(d.Embedding)
		switch {
		case d.Index < 0 || d.Index >= len(texts):
			return nil, agent.Usage{}, fmt.Errorf("embeddings: the server answered for input %d of %d", d.Index, len(texts))
		case n == 0 || n > maxEmbeddingDims || (dims != 0 && n != dims):
			return nil, agent.Usage{}, fmt.Errorf("embeddings: the server sent a vector of %d dimensions", n)
		}
		dims = n
		out[d.Index] = d.Embedding
	}
	for i, v := range out {
		if v == nil {
			return nil, agent.Usage{}, fmt.Errorf("embeddings: the server sent no vector for input %d", i)
		}
	}
	return out, agent.Usage{PromptTokens: resp.Usage.PromptTokens}, nil
}
