package openaifake

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The image generation endpoint
// (platform.openai.com/docs/api-reference/images/create):
// POST /v1/images/generations takes JSON {model, prompt, n, size,
// response_format, ...} and answers {"created": ..., "data": [{"b64_json":
// ...} or {"url": ..., "revised_prompt": ...}]}: GPT image models always
// b64_json, DALL·E a url unless response_format is "b64_json". The fake
// answers as ImageAnswers says, its urls served by the fake itself.

// ImageRequest is one image generation request, as received.
type ImageRequest struct {
	Model, Prompt, Size, ResponseFormat string
	N                                   int
}

// How the fake answers image requests (ImageAnswers).
const (
	AnswerB64 = "b64_json" // the image inline, base64 (the default)
	AnswerURL = "url"      // a url of the fake's own, whose GET serves the image
)

type images struct {
	mu       sync.Mutex
	requests []ImageRequest
	answer   string
	fail     int    // answer the next requests with this status
	picture  []byte // what is served; a small PNG by default
	kind     string // its Content-Type when served by url
	revised  string
	served   map[string][]byte // by url path
	slow     time.Duration     // how long a picture takes to draw
}

// ImageAnswers sets how images are answered: AnswerB64 or AnswerURL.
func (s *Server) ImageAnswers(how string) {
	s.images.mu.Lock()
	defer s.images.mu.Unlock()
	s.images.answer = how
}

// FailImages makes the image endpoint answer with status until cleared with 0.
func (s *Server) FailImages(status int) {
	s.images.mu.Lock()
	defer s.images.mu.Unlock()
	s.images.fail = status
}

// SlowImages makes each picture take d to draw (0: at once), as a real
// image server's take seconds: requests made at once overlap.
func (s *Server) SlowImages(d time.Duration) {
	s.images.mu.Lock()
	defer s.images.mu.Unlock()
	s.images.slow = d
}

// Picture sets the bytes the fake answers with, and the Content-Type a url
// answer serves them as (a hostile server's: too large, not an image);
// nil data restores the default PNG.
func (s *Server) Picture(data []byte, contentType string) {
	s.images.mu.Lock()
	defer s.images.mu.Unlock()
	s.images.picture, s.images.kind = data, contentType
}

// RevisePrompts makes the answers carry revised_prompt, as DALL·E 3's do.
func (s *Server) RevisePrompts(revised string) {
	s.images.mu.Lock()
	defer s.images.mu.Unlock()
	s.images.revised = revised
}

// ImageRequests returns the image requests received so far.
func (s *Server) ImageRequests() []ImageRequest {
	s.images.mu.Lock()
	defer s.images.mu.Unlock()
	return append([]ImageRequest(nil), s.images.requests...)
}

// DefaultPicture is the PNG the fake draws: 4×3 pixels.
var DefaultPicture = func() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 4, 3))
	for x := range 4 {
		for y := range 3 {
			img.Set(x, y, color.RGBA{R: uint8(60 * x), G: uint8(80 * y), B: 200, A: 255})
		}
	}
	var buf bytes.Buffer
	_ = png.Encode(&buf, img) // to memory: cannot fail
	return buf.Bytes()
}()

const imageFilePrefix = "/v1/images/files/"

// serveImages answers the image endpoint and the urls it gave; false for
// any other path.
func (s *Server) serveImages(w http.ResponseWriter, r *http.Request) bool {
	switch {
	case r.URL.Path == "/v1/images/generations":
		s.generate(w, r)
	case strings.HasPrefix(r.URL.Path, imageFilePrefix):
		s.images.mu.Lock()
		data, ok := s.images.served[r.URL.Path]
		kind := s.images.kind
		s.images.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return true
		}
		if kind == "" {
			kind = "image/png"
		}
		w.Header().Set("Content-Type", kind)
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.Write(data)
	default:
		return false
	}
	return true
}

func (s *Server) generate(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model          string `json:"model"`
		Prompt         string `json:"prompt"`
		N              *int   `json:"n"`
		Size           string `json:"size"`
		ResponseFormat string `json:"response_format"`
	}
	if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&req) != nil || req.Prompt == "" {
		audioError(w, http.StatusBadRequest, "prompt is required")
		return
	}
	n := 1
	if req.N != nil {
		n = *req.N
	}
	s.images.mu.Lock()
	slow := s.images.slow
	s.images.mu.Unlock()
	select {
	case <-time.After(slow):
	case <-r.Context().Done():
	}
	s.images.mu.Lock()
	defer s.images.mu.Unlock()
	im := &s.images
	im.requests = append(im.requests, ImageRequest{Model: req.Model, Prompt: req.Prompt, Size: req.Size,
		ResponseFormat: req.ResponseFormat, N: n})
	switch {
	case im.fail != 0:
		audioError(w, im.fail, fmt.Sprintf("injected failure %d", im.fail))
		return
	case n < 1 || n > 10:
		audioError(w, http.StatusBadRequest, "n must be between 1 and 10")
		return
	}
	picture := im.picture
	if picture == nil {
		picture = DefaultPicture
	}
	var data []map[string]any
	for i := range n {
		item := map[string]any{}
		if im.answer == AnswerURL || req.ResponseFormat == AnswerURL {
			path := imageFilePrefix + strconv.Itoa(len(im.requests)) + "-" + strconv.Itoa(i) + ".png"
			if im.served == nil {
				im.served = map[string][]byte{}
			}
			im.served[path] = picture
			item["url"] = "http://" + r.Host + path
		} else {
			item["b64_json"] = base64.StdEncoding.EncodeToString(picture)
		}
		if im.revised != "" {
			item["revised_prompt"] = im.revised
		}
		data = append(data, item)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"created": time.Now().Unix(), "data": data})
}
