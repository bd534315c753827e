package memorize_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/membot/membot/agent/llm"
	"github.com/membot/membot/agent/memorize"
)

// A hostile embeddings server that answers without end is cut off at the
// body bound (32 MiB) with ErrBodyTooLarge, instead of being held in memory
// whole; an ordinary answer still arrives.
func TestAnEmbeddingsAnswerIsBounded(t *testing.T) {
	t.Parallel()
	var sent int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.Header.Get("Authorization"), "ordinary") {
			io.WriteString(w, `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,0.2]}],"usage":{"prompt_tokens":3}}`)
			return
		}
		io.WriteString(w, `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[`)
		chunk := strings.Repeat("0.125,", 10_000)
		for sent < 64<<20 { // twice the bound; the client stops reading long before
			n, err := io.WriteString(w, chunk)
			sent += int64(n)
			if err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)

	_, _, err := memorize.NewEmbedder(srv.URL+"/v1", "hostile", "m", nil).Embed(context.Background(), []string{"hello"})
	if !errors.Is(err, llm.ErrBodyTooLarge) {
		t.Fatalf("an endless embeddings answer gave %v; want ErrBodyTooLarge", err)
	}
	vecs, usage, err := memorize.NewEmbedder(srv.URL+"/v1", "ordinary", "m", nil).Embed(context.Background(), []string{"hello"})
	if err != nil || len(vecs) != 1 || len(vecs[0]) != 2 || usage.PromptTokens != 3 {
		t.Fatalf("an ordinary answer gave %v, %+v, %v", vecs, usage, err)
	}
}

// A server that echoes the key in its error does not get it into membot's
// errors (which the background work logs).
func TestAnEmbeddingsErrorNeverShowsTheKey(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":{"message":"bad key `+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")+`","type":"invalid_request_error"}}`)
	}))
	t.Cleanup(srv.Close)
	_, _, err := memorize.NewEmbedder(srv.URL+"/v1", "sk-secret-embed", "m", nil).Embed(context.Background(), []string{"hello"})
	if err == nil || strings.Contains(err.Error(), "sk-secret-embed") || !strings.Contains(err.Error(), "<redacted>") {
		t.Fatalf("error = %v", err)
	}
}
