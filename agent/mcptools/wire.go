package mcptools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The bounds on a server's tool definitions: they go into every request
// to the model, and a server may send anything.
const (
	maxToolsPerServer = 64
	maxListPages      = 8
	maxToolNameBytes  = 128
	maxDescription    = 1000 // characters
	maxSchemaBytes    = 8 << 10
	// maxResultBytes bounds the text kept of a result; the agent cuts what
	// it shows the model shorter still (and records that it did).
	maxResultBytes = 64 << 10
)

// list returns the server's tools, within the bounds: past
// maxToolsPerServer the rest are left out, and a tool whose name or schema
// breaks a bound is left out with a log line.
func (s *server) list(ctx context.Context, cs *mcp.ClientSession) ([]*mcp.Tool, error) {
	var tools []*mcp.Tool
	seen := map[string]bool{}
	cursor := ""
	for page := 0; page < maxListPages; page++ {
		res, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, err
		}
		for _, t := range res.Tools {
			if len(tools) == maxToolsPerServer {
				s.log.Warn("the MCP server offers more tools than are taken; the rest are left out", "taken", maxToolsPerServer)
				return tools, nil
			}
			tool, err := bounded(t)
			if err == nil && seen[tool.Name] {
				err = errors.New("a second tool of the same name")
			}
			if err != nil {
				s.log.Warn("an MCP tool is left out", "tool", printable(t.Name), "err", err)
				continue
			}
			seen[tool.Name] = true
			tools = append(tools, tool)
		}
		if cursor = res.NextCursor; cursor == "" {
			return tools, nil
		}
	}
	s.log.Warn("the MCP server's tool list has more pages than are read", "pages", maxListPages)
	return tools, nil
}

// bounded checks a tool's definition and returns the part kept: the name,
// the description cut to maxDescription, the input schema.
func bounded(t *mcp.Tool) (*mcp.Tool, error) {
	if t.Name == "" || len(t.Name) > maxToolNameBytes || printable(t.Name) != t.Name {
		return nil, fmt.Errorf("the name is empty, longer than %d bytes or not printable", maxToolNameBytes)
	}
	schema, err := json.Marshal(t.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("the input schema: %w", err)
	}
	if len(schema) > maxSchemaBytes {
		return nil, fmt.Errorf("the input schema is %d bytes, more than %d", len(schema), maxSchemaBytes)
	}
	var obj map[string]any
	if err := json.Unmarshal(schema, &obj); err != nil || obj == nil {
		obj = map[string]any{}
	}
	if typ, ok := obj["type"]; ok && typ != "object" {
		return nil, errors.New(`the input schema is not of "type": "object"`)
	}
	obj["type"] = "object"
	desc := strings.ToValidUTF8(t.Description, "?")
	if utf8.RuneCountInString(desc) > maxDescription {
		desc = string([]rune(desc)[:maxDescription]) + "…"
	}
	return &mcp.Tool{Name: t.Name, Description: desc, InputSchema: obj}, nil
}

// printable is s with what is not a printable character replaced: names
// are shown to the person who approves a call.
func printable(s string) string {
	s = strings.ToValidUTF8(s, "?")
	return strings.Map(func(r rune) rune {
		if !unicode.IsPrint(r) {
			return '?'
		}
		return r
	}, s)
}

// resultText is what the model is shown of a result: its text, and what
// is not text described rather than passed (an image, audio, a blob), up
// to maxResultBytes. A result the server marks as an error is the error.
func resultText(res *mcp.CallToolResult) (string, error) {
	var b strings.Builder
	add := func(s string) {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(s)
	}
	for _, c := range res.Content {
		if b.Len() >= maxResultBytes {
			break
		}
		switch c := c.(type) {
		case *mcp.TextContent:
			add(c.Text)
		case *mcp.ImageContent:
			add(fmt.Sprintf("[an image (%s, %d bytes) the tool returned; not shown]", printable(c.MIMEType), len(c.Data)))
		case *mcp.AudioContent:
			add(fmt.Sprintf("[audio (%s, %d bytes) the tool returned; not passed on]", printable(c.MIMEType), len(c.Data)))
		case *mcp.ResourceLink:
			add(fmt.Sprintf("[a link to the resource %s (%s)]", printable(c.URI), printable(c.Name)))
		case *mcp.EmbeddedResource:
			switch {
			case c.Resource == nil:
			case c.Resource.Text != "":
				add(fmt.Sprintf("[the resource %s]\n%s", printable(c.Resource.URI), c.Resource.Text))
			default:
				add(fmt.Sprintf("[the resource %s (%s, %d bytes); not passed on]", printable(c.Resource.URI), printable(c.Resource.MIMEType), len(c.Resource.Blob)))
			}
		default:
			add("[content of a kind not passed on]")
		}
	}
	if b.Len() == 0 && res.StructuredContent != nil {
		if raw, err := json.Marshal(res.StructuredContent); err == nil {
			add(string(raw))
		}
	}
	text := strings.ToValidUTF8(b.String(), "?")
	if len(text) > maxResultBytes {
		text = strings.ToValidUTF8(text[:maxResultBytes], "") // a character cut in two goes
	}
	if res.IsError { // the agent cuts an error shorter
		if text == "" {
			text = "no details given"
		}
		return "", errors.New(text)
	}
	return text, nil
}

// withHeaders sends a server's headers with every request, and bounds
// every response: an event stream's events (their size and count) and its
// bytes, any other body's bytes. A breach is an error for whoever reads
// the body, and is told to breach (the server is disconnected as
// misbehaving).
type withHeaders struct {
	base    http.RoundTripper
	headers map[string]string
	breach  func(error)
}

func (t *withHeaders) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range t.headers {
		req.Header.Set(k, v)
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "text/event-stream" {
		resp.Body = &eventStream{r: resp.Body, breach: t.breach}
	} else {
		resp.Body = &boundedBody{r: resp.Body, left: maxBodyBytes, breach: t.breach}
	}
	return resp, nil
}

// boundedBody fails once more than left bytes were read.
type boundedBody struct {
	r      io.ReadCloser
	left   int64
	breach func(error)
}

var errBodyTooLong = fmt.Errorf("it sent a response longer than %d MiB", maxBodyBytes>>20)

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, errBodyTooLong
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		b.breach(errBodyTooLong)
		return 0, errBodyTooLong
	}
	return n, err
}

func (b *boundedBody) Close() error { return b.r.Close() }

// The errors of an event stream past its bounds.
var (
	errEventTooLong  = fmt.Errorf("it sent an event longer than %d MiB", maxEventBytes>>20)
	errStreamTooLong = fmt.Errorf("it sent a stream longer than %d MiB", maxStreamBytes>>20)
	errTooManyEvents = fmt.Errorf("it sent more than %d events in one stream", maxStreamEvents)
)

// eventStream reads an SSE body within the bounds: an event (the lines up
// to a blank one) at most maxEventBytes, the stream at most maxStreamBytes
// and maxStreamEvents events (comment lines, such as keep-alives, count
// only as bytes). It watches the bytes go by; the SDK parses them.
type eventStream struct {
	r      io.ReadCloser
	breach func(error)
	err    error // the bound broken, once one was

	total, event, events int
	line                 int  // bytes of the line so far, "\r" left out
	fields               bool // the event has a line that is not a comment
	comment              bool // the line so far begins with ":"
}

func (e *eventStream) Read(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.r.Read(p)
	for _, c := range p[:n] {
		e.total++
		e.event++
		switch c {
		case '\r':
		case '\n':
			if e.line == 0 { // a blank line ends the event
				if e.fields {
					e.events++
				}
				e.event, e.fields = 0, false
			} else if !e.comment {
				e.fields = true
			}
			e.line, e.comment = 0, false
		default:
			if e.line == 0 {
				e.comment = c == ':'
			}
			e.line++
		}
		switch {
		case e.event > maxEventBytes:
			e.err = errEventTooLong
		case e.total > maxStreamBytes:
			e.err = errStreamTooLong
		case e.events > maxStreamEvents:
			e.err = errTooManyEvents
		}
		if e.err != nil {
			e.breach(e.err)
			return 0, e.err
		}
	}
	return n, err
}

func (e *eventStream) Close() error { return e.r.Close() }
