package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/membot/membot/internal/redact"
)

// Limits bound what a call reads; zero fields take the defaults.
type Limits struct {
	// BodyBytes bounds a response body, streamed or not: 16 MiB.
	BodyBytes int64
	// AnswerBytes bounds the answer's text, reasoning included: 256 KiB.
	// Past it the rest is not read and the answer ends as "length".
	AnswerBytes int
	// ToolArgumentBytes bounds one tool call's arguments: 16 KiB, as tool
	// results are bounded (both are sent again with every later request). Past it
	// they are dropped and the call is named in Response.Oversized.
	ToolArgumentBytes int
	// Idle bounds the wait for the next streamed chunk (the first one
	// included): 120 s. The whole call is bounded by the caller's context.
	Idle time.Duration
}

func (l Limits) withDefaults() Limits {
	if l.BodyBytes <= 0 {
		l.BodyBytes = 16 << 20
	}
	if l.AnswerBytes <= 0 {
		l.AnswerBytes = 256 << 10
	}
	if l.ToolArgumentBytes <= 0 {
		l.ToolArgumentBytes = 16 << 10
	}
	if l.Idle <= 0 {
		l.Idle = DefaultIdle
	}
	return l
}

// Client calls one server's chat completions endpoint.
type Client struct {
	BaseURL string // e.g. https://api.openai.com/v1
	APIKey  string // sent as a bearer token when not empty; never logged
	HTTP    *http.Client
	Limits  Limits
}

// APIError is a call the server refused or failed: an HTTP error status,
// or an error sent inside a 200 stream (InStream, Status from its code or 0).
type APIError struct {
	Status   int
	Message  string
	InStream bool
}

func (e *APIError) Error() string {
	if e.InStream {
		return fmt.Sprintf("the model server reported an error in the stream (%d): %s", e.Status, e.Message)
	}
	return fmt.Sprintf("the model server answered %d: %s", e.Status, e.Message)
}

// HTTPStatus is the status and the server's message (internal/netcause);
// 0 for an error sent inside a stream.
func (e *APIError) HTTPStatus() (int, string) { return e.Status, e.Message }

// Errors of calls that the server answered in a way that cannot be used.
var (
	ErrBodyTooLarge = errors.New("the model server's response is larger than allowed")
	ErrStreamCut    = errors.New("the answer stream ended before the answer was complete")
	ErrIdle         = fmt.Errorf("the model server sent nothing for too long: %w", context.DeadlineExceeded)
	// ErrFinishError is an answer the server ended with finish_reason
	// "error" (OpenRouter: the provider failed mid-answer).
	ErrFinishError = errors.New("the model server ended the answer with an error")
)

// Complete makes one call. With req.Stream, onDelta gets the answer's
// pieces as they arrive (reasoning apart from the content); it may be nil.
// The API key never appears in an error it returns: some servers echo the
// request's Authorization header back in their error text.
func (c *Client) Complete(ctx context.Context, req Request, onDelta func(Delta)) (*Response, error) {
	out, err := c.complete(ctx, req, onDelta)
	if err != nil {
		return nil, c.redacted(err)
	}
	return out, nil
}

func (c *Client) complete(ctx context.Context, req Request, onDelta func(Delta)) (*Response, error) {
	lim := c.Limits.withDefaults()
	body, err := req.encode()
	if err != nil {
		return nil, fmt.Errorf("encode the request: %w", err)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var idle *time.Timer
	if req.Stream {
		idle = time.AfterFunc(lim.Idle, func() { cancel(ErrIdle) })
		defer idle.Stop()
	}
	accept := ""
	if req.Stream {
		accept = "text/event-stream"
	}
	resp, err := c.post(ctx, "/chat/completions", "application/json", accept, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	r := bufio.NewReader(&limitedReader{r: resp.Body, left: lim.BodyBytes})
	var out *Response
	if req.Stream && !startsWithJSON(r) { // a server may ignore "stream"
		out, err = readStream(r, lim, onDelta, func() { idle.Reset(lim.Idle) })
	} else {
		out, err = readWhole(r, lim, onDelta)
	}
	if err != nil {
		return nil, callError(ctx, err)
	}
	return out, nil
}

// post sends a request to one of the server's endpoints (path under
// BaseURL) and returns its response when the status is 2xx; any other is
// an *APIError with the server's message. The caller closes the body.
func (c *Client) post(ctx context.Context, path, contentType, accept string, body io.Reader) (*http.Response, error) {
	httpReq, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(c.BaseURL, "/")+path, body)
	if err != nil {
		return nil, err
	}
	httpReq.Header.Set("Content-Type", contentType)
	if accept != "" {
		httpReq.Header.Set("Accept", accept)
	}
	if c.APIKey != "" {
		httpReq.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	client := c.HTTP
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(httpReq)
	if err != nil {
		return nil, callError(ctx, err)
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return nil, &APIError{Status: resp.StatusCode, Message: errorMessage(data)}
	}
	return resp, nil
}

// redacted is err without the API key in its text.
func (c *Client) redacted(err error) error {
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		apiErr.Message = redact.String(apiErr.Message, redact.Mark, c.APIKey)
	}
	return redact.Error(err, redact.Mark, c.APIKey)
}

// startsWithJSON reports whether the body is a JSON document rather than events.
func startsWithJSON(r *bufio.Reader) bool {
	for {
		b, err := r.Peek(1)
		if err != nil {
			return false
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			_, _ = r.ReadByte()
		default:
			return b[0] == '{' || b[0] == '['
		}
	}
}

// callError names the idle time-out as the cause when it was.
func callError(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); errors.Is(cause, ErrIdle) {
		return ErrIdle
	}
	return err
}

// limitedReader fails with ErrBodyTooLarge past its bound.
type limitedReader struct {
	r    io.Reader
	left int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, ErrBodyTooLarge
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

// errorMessage finds the message in an error body of any of the shapes
// servers use: {"error": {"message": ...}}, {"error": "..."},
// {"message": ...} (Mistral; its message may be an object), or Gemini's
// [{"error": {...}}]. Anything else is the body itself, shortened.
func errorMessage(body []byte) string {
	body = bytes.TrimSpace(body)
	if bytes.HasPrefix(body, []byte("[")) {
		var list []json.RawMessage
		if json.Unmarshal(body, &list) == nil && len(list) > 0 {
			body = list[0]
		}
	}
	var shape struct {
		Error   json.RawMessage `json:"error"`
		Message json.RawMessage `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &shape) == nil {
		for _, raw := range []json.RawMessage{shape.Error, shape.Message, shape.Detail} {
			if msg := messageOf(raw); msg != "" {
				return shorten(msg, 2000)
			}
		}
	}
	return shorten(string(body), 2000)
}

func messageOf(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var obj struct {
		Message json.RawMessage `json:"message"`
	}
	if json.Unmarshal(raw, &obj) == nil && len(obj.Message) > 0 {
		if msg := messageOf(obj.Message); msg != "" {
			return msg
		}
	}
	return string(raw)
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// BoundedBodies returns a transport over rt (http.DefaultTransport when nil)
// whose response bodies fail with ErrBodyTooLarge past max bytes: for model
// APIs read through other clients (go-openai's embeddings), so a hostile
// server cannot make membot hold an unbounded answer in memory.
func BoundedBodies(rt http.RoundTripper, max int64) http.RoundTripper {
	if rt == nil {
		rt = http.DefaultTransport
	}
	return boundedTransport{rt: rt, max: max}
}

type boundedTransport struct {
	rt  http.RoundTripper
	max int64
}

func (b boundedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := b.rt.RoundTrip(r)
	if err == nil {
		resp.Body = boundedBody{Reader: &limitedReader{r: resp.Body, left: b.max}, Closer: resp.Body}
	}
	return resp, err
}

type boundedBody struct {
	io.Reader
	io.Closer
}

// CallStatus is what llm_calls.status says of a call's error: "ok" for
// none, the server's HTTP status, "stream_error", "timeout", "too_large",
// "network" or "error".
func CallStatus(err error) string {
	if err == nil {
		return "ok"
	}
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		if apiErr.Status != 0 {
			return strconv.Itoa(apiErr.Status)
		}
		return "stream_error"
	}
	var netErr net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, ErrBodyTooLarge):
		return "too_large"
	case errors.As(err, &netErr):
		return "network"
	}
	return "error"
}
