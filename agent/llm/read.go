package llm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// choice is the part of a response or of a streamed chunk that matters:
// the message (Delta in a chunk) and the finish reason.
type choice struct {
	Index        int         `json:"index"`
	Message      wireContent `json:"message"`
	Delta        wireContent `json:"delta"`
	FinishReason *string     `json:"finish_reason"`
}

// wireContent is an answer's message or a delta of it. Content may be a
// string or (Mistral's reasoning models) a list of text and thinking parts;
// reasoning arrives as reasoning_content (DeepSeek, vLLM, llama.cpp) or
// reasoning (OpenRouter, newer vLLM and Ollama).
type wireContent struct {
	Content          json.RawMessage `json:"content"`
	ReasoningContent json.RawMessage `json:"reasoning_content"`
	Reasoning        json.RawMessage `json:"reasoning"`
	Thinking         json.RawMessage `json:"thinking"`
	ToolCalls        []ToolCall      `json:"tool_calls"`
}

type body struct {
	Model   string          `json:"model"`
	Choices []choice        `json:"choices"`
	Usage   *Usage          `json:"usage"`
	Error   json.RawMessage `json:"error"`
	XGroq   *struct {
		Usage *Usage `json:"usage"`
	} `json:"x_groq"` // Groq's usage in streams
}

// readWhole reads a response that is one JSON document.
func readWhole(r io.Reader, lim Limits, onDelta func(Delta)) (*Response, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var b body
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, fmt.Errorf("the model server's response is not JSON: %w", err)
	}
	if e := bodyError(b.Error); e != nil {
		return nil, e
	}
	if len(b.Choices) == 0 {
		return nil, errors.New("the model server's response has no choices")
	}
	a := newAssembler(lim, onDelta)
	a.model, a.usage = b.Model, b.Usage
	c := b.Choices[0]
	a.add(c.Message)
	if c.FinishReason != nil {
		a.finish = *c.FinishReason
	}
	if a.finish == FinishError {
		return nil, ErrFinishError
	}
	switch {
	case a.cut:
		a.finish = FinishLength
	case a.finish == "":
		a.finish = FinishStop // some servers leave it out of whole answers
	}
	return a.response(), nil
}

// readStream reads server-sent events: "data: {chunk}" lines up to
// "data: [DONE]"; comments (": OPENROUTER PROCESSING") and other fields
// only show the server is alive. alive is called for every line.
func readStream(r io.Reader, lim Limits, onDelta func(Delta), alive func()) (*Response, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	a := newAssembler(lim, onDelta)
	for {
		line, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if len(line) > 0 {
			alive()
		}
		if data, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("data:")); ok {
			data = bytes.TrimSpace(data)
			if string(data) == "[DONE]" {
				break
			}
			if e := a.chunk(data); e != nil {
				return nil, e
			}
			if a.cut {
				break // past the answer's bound: the rest is not read
			}
		}
		if err != nil { // io.EOF
			break
		}
	}
	a.flush()
	switch {
	case a.cut:
		a.finish = FinishLength
	case a.finish == "":
		return nil, ErrStreamCut
	}
	return a.response(), nil
}

// chunk adds one streamed chunk.
func (a *assembler) chunk(data []byte) error {
	var b body
	if err := json.Unmarshal(data, &b); err != nil {
		return fmt.Errorf("a streamed chunk is not JSON: %w", err)
	}
	if e := bodyError(b.Error); e != nil {
		return e
	}
	if b.Model != "" {
		a.model = b.Model
	}
	if b.Usage != nil {
		a.usage = b.Usage
	}
	if b.XGroq != nil && b.XGroq.Usage != nil {
		a.usage = b.XGroq.Usage
	}
	for _, c := range b.Choices {
		if c.Index != 0 {
			continue // one choice is asked for
		}
		a.add(c.Delta)
		if c.FinishReason != nil && *c.FinishReason != "" {
			a.finish = *c.FinishReason
			if a.finish == FinishError {
				return ErrFinishError
			}
		}
	}
	return nil
}

// bodyError is the error a 200 response or chunk carries, if any.
func bodyError(raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var obj struct {
		Code json.RawMessage `json:"code"`
	}
	status := 0
	if json.Unmarshal(raw, &obj) == nil {
		status, _ = strconv.Atoi(strings.Trim(string(obj.Code), `"`))
	}
	return &APIError{Status: status, Message: shorten(messageOf(raw), 2000), InStream: true}
}

// assembler puts an answer together from its pieces, within the limits.
type assembler struct {
	lim                Limits
	onDelta            func(Delta)
	think              thinkSplitter
	content, reasoning strings.Builder
	reasoningFrom      string
	calls              []ToolCall
	args               []*strings.Builder
	oversized          map[int]bool
	finish, model      string
	usage              *Usage
	cut                bool
}

func newAssembler(lim Limits, onDelta func(Delta)) *assembler {
	if onDelta == nil {
		onDelta = func(Delta) {}
	}
	return &assembler{lim: lim, onDelta: onDelta}
}

func (a *assembler) add(w wireContent) {
	for _, field := range []struct {
		raw  json.RawMessage
		from string
	}{{w.ReasoningContent, "reasoning_content"}, {w.Reasoning, "reasoning"}, {w.Thinking, "reasoning"}} {
		if s := stringOf(field.raw); s != "" {
			a.addReasoning(s, field.from)
		}
	}
	text, thinking := contentOf(w.Content)
	if thinking != "" {
		a.addReasoning(thinking, "reasoning")
	}
	if text != "" {
		for _, seg := range a.think.feed(text) {
			a.segment(seg)
		}
	}
	for _, f := range w.ToolCalls {
		a.addToolCall(f)
	}
}

func (a *assembler) flush() {
	for _, seg := range a.think.flush() {
		a.segment(seg)
	}
}

func (a *assembler) segment(seg segment) {
	switch {
	case seg.reset: // what was shown as the answer was thinking
		a.addReasoning(a.content.String(), "tags")
		a.content.Reset()
		a.onDelta(Delta{Reset: true})
	case seg.reasoning:
		a.addReasoning(seg.text, "tags")
	default:
		if s := a.room(seg.text); s != "" {
			a.content.WriteString(s)
			a.onDelta(Delta{Content: s})
		}
	}
}

func (a *assembler) addReasoning(s, from string) {
	if a.reasoningFrom == "" {
		a.reasoningFrom = from
	}
	if s = a.room(s); s != "" {
		a.reasoning.WriteString(s)
		a.onDelta(Delta{Reasoning: s})
	}
}

// room returns what of s still fits the answer's bound, and marks the
// answer cut when not all of it does.
func (a *assembler) room(s string) string {
	left := a.lim.AnswerBytes - a.content.Len() - a.reasoning.Len()
	if len(s) <= left {
		return s
	}
	a.cut = true
	if left <= 0 {
		return ""
	}
	s = s[:left]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// addToolCall adds a fragment of a tool call: the first fragment of a call
// carries its id and name, the later ones more of its arguments, and the
// index says which call a fragment belongs to. A fragment without an index
// (some servers send each call whole) is a call of its own.
func (a *assembler) addToolCall(f ToolCall) {
	i := len(a.calls)
	if f.Index != nil && *f.Index >= 0 && *f.Index < 128 {
		i = *f.Index
	}
	for len(a.calls) <= i {
		a.calls = append(a.calls, ToolCall{Type: "function"})
		a.args = append(a.args, &strings.Builder{})
	}
	call := &a.calls[i]
	if f.ID != "" {
		call.ID = f.ID
	}
	if f.Function.Name != "" {
		call.Function.Name = f.Function.Name
	}
	for k, v := range f.Extra {
		if call.Extra == nil {
			call.Extra = map[string]json.RawMessage{}
		}
		call.Extra[k] = v
	}
	if a.oversized[i] {
		return
	}
	if a.args[i].Len()+len(f.Function.Arguments) > a.lim.ToolArgumentBytes {
		if a.oversized == nil {
			a.oversized = map[int]bool{}
		}
		a.oversized[i] = true
		a.args[i].Reset()
		return
	}
	a.args[i].WriteString(f.Function.Arguments)
}

// response is the answer put together.
func (a *assembler) response() *Response {
	r := &Response{Model: a.model, FinishReason: a.finish, Usage: a.usage, AnswerCut: a.cut,
		Reasoning: strings.TrimSpace(a.reasoning.String()), ReasoningFrom: a.reasoningFrom,
		Message: Message{Role: RoleAssistant, Content: a.content.String()}}
	if r.Reasoning == "" {
		r.ReasoningFrom = ""
	}
	for i, call := range a.calls {
		if call.Function.Name == "" && call.ID == "" {
			continue // an index the server skipped
		}
		if call.ID == "" {
			call.ID = fmt.Sprintf("call_%d", i) // the result must name its call
		}
		call.Index = nil
		call.Function.Arguments = a.args[i].String()
		if a.oversized[i] {
			if r.Oversized == nil {
				r.Oversized = map[string]bool{}
			}
			r.Oversized[call.ID] = true
			call.Function.Arguments = "{}"
		}
		r.Message.ToolCalls = append(r.Message.ToolCalls, call)
	}
	return r
}

// stringOf is the JSON string raw holds, or "".
func stringOf(raw json.RawMessage) string {
	if len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// contentOf splits a content field into answer text and thinking: a string
// is all text; a list of parts has "text" parts and "thinking" parts (whose
// thinking is itself a string or a list of text parts).
func contentOf(raw json.RawMessage) (text, thinking string) {
	if len(raw) == 0 || raw[0] != '[' {
		return stringOf(raw), ""
	}
	var parts []struct {
		Type     string          `json:"type"`
		Text     string          `json:"text"`
		Thinking json.RawMessage `json:"thinking"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return "", ""
	}
	var t, th strings.Builder
	for _, p := range parts {
		switch p.Type {
		case "text":
			t.WriteString(p.Text)
		case "thinking":
			if s := stringOf(p.Thinking); s != "" {
				th.WriteString(s)
				continue
			}
			inner, _ := contentOf(p.Thinking)
			th.WriteString(inner)
		}
	}
	return t.String(), th.String()
}
