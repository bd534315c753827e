package llm_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/membot/membot/agent/llm"
	"github.com/membot/membot/internal/testing/openaifake"
)

func TestImagesComeInlineOrByURLAndTheKeyStaysWithTheServer(t *testing.T) {
	t.Parallel()
	fake := openaifake.New()
	defer fake.Close()
	fake.RevisePrompts("a red cat, watercolour")
	c := &llm.Client{BaseURL: fake.URL(), APIKey: "sk-secret"}
	for _, how := range []string{openaifake.AnswerB64, openaifake.AnswerURL} {
		fake.ImageAnswers(how)
		img, err := c.GenerateImage(context.Background(), "gpt-image-1", "a red cat")
		if err != nil {
			t.Fatalf("%s: %v", how, err)
		}
		if !bytes.Equal(img.Data, openaifake.DefaultPicture) || img.MimeType != "image/png" || img.RevisedPrompt != "a red cat, watercolour" {
			t.Fatalf("%s: got %d bytes of %s, revised %q", how, len(img.Data), img.MimeType, img.RevisedPrompt)
		}
	}
	reqs := fake.ImageRequests()
	if len(reqs) != 2 || reqs[0].Model != "gpt-image-1" || reqs[0].Prompt != "a red cat" || reqs[0].N != 1 || reqs[0].ResponseFormat != "" {
		t.Fatalf("requests: %+v", reqs)
	}
}

func TestAHostileImageServerIsRefused(t *testing.T) {
	t.Parallel()
	fake := openaifake.New()
	defer fake.Close()
	c := &llm.Client{BaseURL: fake.URL(), APIKey: "sk-secret"}
	draw := func() error {
		_, err := c.GenerateImage(context.Background(), "m", "p")
		return err
	}
	huge := append(bytes.Clone(openaifake.DefaultPicture), make([]byte, llm.MaxImageBytes)...)
	for _, how := range []string{openaifake.AnswerB64, openaifake.AnswerURL} {
		fake.ImageAnswers(how)
		fake.Picture(huge, "image/png")
		if err := draw(); !errors.Is(err, llm.ErrImageTooLarge) {
			t.Errorf("%s, too large: %v", how, err)
		}
		fake.Picture([]byte("<html>not a picture</html>"), "image/png")
		if err := draw(); !errors.Is(err, llm.ErrNotImage) {
			t.Errorf("%s, not an image: %v", how, err)
		}
	}
	fake.Picture(openaifake.DefaultPicture, "text/html") // served as something else
	if err := draw(); !errors.Is(err, llm.ErrNotImage) {
		t.Errorf("served as text/html: %v", err)
	}
	fake.FailImages(http.StatusBadRequest)
	var apiErr *llm.APIError
	if err := draw(); !errors.As(err, &apiErr) || apiErr.Status != http.StatusBadRequest {
		t.Errorf("a refusal: %v", err)
	}
}

func TestAnImageURLIsFetchedOnlyOverHTTPAndWithoutTheKey(t *testing.T) {
	t.Parallel()
	var auth []string
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = append(auth, r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "image/png")
		w.Write(openaifake.DefaultPicture)
	}))
	defer files.Close()
	answer := ""
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"created": 1, "data": [{"url": "` + answer + `"}]}`))
	}))
	defer server.Close()
	c := &llm.Client{BaseURL: server.URL, APIKey: "sk-secret"}
	answer = files.URL + "/a.png"
	if _, err := c.GenerateImage(context.Background(), "m", "p"); err != nil || len(auth) != 1 || auth[0] != "" {
		t.Fatalf("fetched with %q: %v", auth, err)
	}
	for _, bad := range []string{"file:///etc/passwd", "ftp://example.com/a.png", "data:image/png;base64,AAAA"} {
		answer = bad
		if _, err := c.GenerateImage(context.Background(), "m", "p"); !errors.Is(err, llm.ErrNotImage) || !strings.Contains(err.Error(), "http") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	answer = ""
	if _, err := c.GenerateImage(context.Background(), "m", "p"); !errors.Is(err, llm.ErrNoImage) {
		t.Errorf("no image: %v", err)
	}
}
