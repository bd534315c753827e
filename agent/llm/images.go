package llm

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The image generation endpoint of OpenAI-compatible servers
// (platform.openai.com/docs/api-reference/images/create): a JSON request
// {model, prompt, n}, answered {"created", "data": [{"b64_json" | "url",
// "revised_prompt"}]}. GPT image models answer b64_json only; DALL·E
// answers a url by default. No response_format is sent, as GPT image
// models refuse it: either answer is taken.

// MaxImageBytes bounds a generated image, decoded or downloaded: 10 MB,
// what Telegram takes as a photo.
const MaxImageBytes = 10 << 20

// maxRevisedRunes bounds the revised prompt kept of an answer.
const maxRevisedRunes = 4000

// imageFetchTimeout bounds the download of an image a server answered
// with a url.
const imageFetchTimeout = 60 * time.Second

// Image is a generated picture.
type Image struct {
	Data     []byte
	MimeType string // image/png, image/jpeg, ... as its bytes say
	// RevisedPrompt is the prompt the server drew from when it changed
	// the one sent (DALL·E 3); "" otherwise.
	RevisedPrompt string
}

// Errors of an image answer that cannot be used.
var (
	ErrNoImage       = errors.New("the image server answered without an image")
	ErrImageTooLarge = fmt.Errorf("the generated image is larger than %d MB", MaxImageBytes>>20)
	ErrNotImage      = errors.New("what the image server gave is not an image")
)

// GenerateImage asks {BaseURL}/images/generations for one picture of
// prompt. A url answer is downloaded, without the API key (the file is
// on another host), over http(s) only, within a minute and MaxImageBytes,
// and only when it says it is an image.
func (c *Client) GenerateImage(ctx context.Context, model, prompt string) (*Image, error) {
	img, err := c.generateImage(ctx, model, prompt)
	if err != nil {
		return nil, c.redacted(err)
	}
	return img, nil
}

func (c *Client) generateImage(ctx context.Context, model, prompt string) (*Image, error) {
	body, err := json.Marshal(map[string]any{"model": model, "prompt": prompt, "n": 1})
	if err != nil {
		return nil, err
	}
	resp, err := c.post(ctx, "/images/generations", "application/json", "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	// base64 is 4/3 of the bytes; a little more for the rest of the JSON.
	data, err := io.ReadAll(&limitedReader{r: resp.Body, left: MaxImageBytes*4/3 + 64<<10})
	if errors.Is(err, ErrBodyTooLarge) {
		return nil, ErrImageTooLarge
	}
	if err != nil {
		return nil, callError(ctx, err)
	}
	var out struct {
		Data []struct {
			B64JSON       string `json:"b64_json"`
			URL           string `json:"url"`
			RevisedPrompt string `json:"revised_prompt"`
		} `json:"data"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("decode the image answer: %w", err)
	}
	if len(out.Data) == 0 {
		return nil, ErrNoImage
	}
	first := out.Data[0]
	var picture []byte
	switch {
	case first.B64JSON != "":
		if base64.StdEncoding.DecodedLen(len(first.B64JSON)) > MaxImageBytes+3 {
			return nil, ErrImageTooLarge
		}
		if picture, err = base64.StdEncoding.DecodeString(first.B64JSON); err != nil {
			return nil, fmt.Errorf("%w: bad base64: %w", ErrNotImage, err)
		}
	case first.URL != "":
		if picture, err = c.fetchImage(ctx, first.URL); err != nil {
			return nil, err
		}
	default:
		return nil, ErrNoImage
	}
	if len(picture) > MaxImageBytes {
		return nil, ErrImageTooLarge
	}
	kind := http.DetectContentType(picture)
	if !strings.HasPrefix(kind, "image/") {
		return nil, ErrNotImage
	}
	return &Image{Data: picture, MimeType: kind, RevisedPrompt: truncateRunes(strings.TrimSpace(first.RevisedPrompt), maxRevisedRunes)}, nil
}

// fetchImage downloads the image an answer named by its url.
func (c *Client) fetchImage(ctx context.Context, raw string) ([]byte, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: its url is not http(s)", ErrNotImage)
	}
	ctx, cancel := context.WithTimeout(ctx, imageFetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "image/*")
	client := &http.Client{CheckRedirect: func(next *http.Request, via []*http.Request) error {
		if len(via) >= 3 {
			return errors.New("too many redirects")
		}
		if next.URL.Scheme != "http" && next.URL.Scheme != "https" {
			return errors.New("a redirect away from http(s)")
		}
		return nil
	}}
	if c.HTTP != nil {
		client.Transport = c.HTTP.Transport
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("download the image: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("download the image: status %d", resp.StatusCode)
	}
	if kind, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); !strings.HasPrefix(kind, "image/") {
		return nil, fmt.Errorf("%w: it was served as %q", ErrNotImage, truncateRunes(kind, 100))
	}
	if resp.ContentLength > MaxImageBytes {
		return nil, ErrImageTooLarge
	}
	data, err := io.ReadAll(&limitedReader{r: resp.Body, left: MaxImageBytes + 1})
	if errors.Is(err, ErrBodyTooLarge) || len(data) > MaxImageBytes {
		return nil, ErrImageTooLarge
	}
	if err != nil {
		return nil, fmt.Errorf("download the image: %w", err)
	}
	return data, nil
}

// truncateRunes cuts s to at most n runes.
func truncateRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}
