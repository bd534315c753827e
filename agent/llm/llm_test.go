package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"
)

// sse serves the given data lines as a stream.
func sse(t testing.TB, lines ...string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, l := range lines {
			fmt.Fprint(w, l)
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func chunk(content string) string {
	return fmt.Sprintf("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":%q}}]}\n\n", content)
}

const finished = "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"

func TestThinkTagsSplitAcrossChunksAreNotTheAnswer(t *testing.T) {
	var lines []string
	for _, c := range cut("  <think>weighing it up</think>\n\nThe answer is 4.", 3) {
		lines = append(lines, chunk(c))
	}
	srv := sse(t, append(lines, finished)...)
	var shown strings.Builder
	r, err := (&Client{BaseURL: srv.URL}).Complete(context.Background(), Request{Stream: true}, func(d Delta) { shown.WriteString(d.Content) })
	if err != nil {
		t.Fatal(err)
	}
	if r.Message.Content != "The answer is 4." || shown.String() != "The answer is 4." || r.Reasoning != "weighing it up" || r.ReasoningFrom != "tags" {
		t.Fatalf("content %q, shown %q, reasoning %q from %q", r.Message.Content, shown.String(), r.Reasoning, r.ReasoningFrom)
	}
}

func TestAClosingTagAloneTurnsWhatCameBeforeIntoThinking(t *testing.T) {
	srv := sse(t, chunk("Hmm, the user wants"), chunk(" a number.</thi"), chunk("nk>\n\nFour."), finished)
	resets := 0
	var shown strings.Builder
	r, err := (&Client{BaseURL: srv.URL}).Complete(context.Background(), Request{Stream: true}, func(d Delta) {
		if d.Reset {
			resets++
			shown.Reset()
		}
		shown.WriteString(d.Content)
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.Message.Content != "Four." || shown.String() != "Four." || resets != 1 || r.Reasoning != "Hmm, the user wants a number." {
		t.Fatalf("content %q, shown %q, resets %d, reasoning %q", r.Message.Content, shown.String(), resets, r.Reasoning)
	}
}

func TestReasoningFieldsAndMistralThinkingParts(t *testing.T) {
	srv := sse(t,
		`data: {"choices":[{"index":0,"delta":{"reasoning_content":"a"}}]}`+"\n\n",
		`data: {"choices":[{"index":0,"delta":{"reasoning":"b"}}]}`+"\n\n",
		`data: {"choices":[{"index":0,"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"c"}]},{"type":"text","text":"Done"}]}}]}`+"\n\n",
		finished)
	r, err := (&Client{BaseURL: srv.URL}).Complete(context.Background(), Request{Stream: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Message.Content != "Done" || r.Reasoning != "abc" || r.ReasoningFrom != "reasoning_content" {
		t.Fatalf("%+v", r)
	}
}

func TestErrorsInsideA200Stream(t *testing.T) {
	srv := sse(t, ": OPENROUTER PROCESSING\n\n", chunk("Half an ans"),
		`data: {"error":{"code":502,"message":"Provider disconnected"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}`+"\n\n")
	_, err := (&Client{BaseURL: srv.URL}).Complete(context.Background(), Request{Stream: true}, nil)
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 502 || !apiErr.InStream || !strings.Contains(apiErr.Message, "Provider disconnected") {
		t.Fatalf("err = %v", err)
	}
	srv = sse(t, chunk("Half"), `data: {"choices":[{"index":0,"delta":{},"finish_reason":"error"}]}`+"\n\n")
	if _, err := (&Client{BaseURL: srv.URL}).Complete(context.Background(), Request{Stream: true}, nil); !errors.Is(err, ErrFinishError) {
		t.Fatalf("finish_reason error gave %v", err)
	}
	srv = sse(t, chunk("Half"))
	if _, err := (&Client{BaseURL: srv.URL}).Complete(context.Background(), Request{Stream: true}, nil); !errors.Is(err, ErrStreamCut) {
		t.Fatalf("a stream without a finish gave %v", err)
	}
}

func TestErrorBodiesOfEveryShapeGiveTheirMessage(t *testing.T) {
	for body, want := range map[string]string{
		`{"error":{"message":"m1","type":"x"}}`: "m1",
		`{"error":"m2"}`:                        "m2",
		`[{"error":{"code":400,"message":"m3","status":"INVALID_ARGUMENT"}}]`:     "m3",
		`{"object":"error","message":{"detail":[{"msg":"m4"}]},"type":"invalid"}`: `{"detail":[{"msg":"m4"}]}`,
		`plain text`: "plain text",
	} {
		if got := errorMessage([]byte(body)); got != want {
			t.Errorf("errorMessage(%s) = %q, want %q", body, got, want)
		}
	}
}

func TestBoundsOnBodyAnswerAndToolArguments(t *testing.T) {
	big := strings.Repeat("x", 1000)
	srv := sse(t, chunk(big), chunk(big), chunk(big), finished)
	r, err := (&Client{BaseURL: srv.URL, Limits: Limits{AnswerBytes: 1500}}).Complete(context.Background(), Request{Stream: true}, nil)
	if err != nil || len(r.Message.Content) != 1500 || !r.AnswerCut || r.FinishReason != FinishLength {
		t.Fatalf("answer bound: %v, %d bytes, cut %v, finish %q", err, len(r.Message.Content), r.AnswerCut, r.FinishReason)
	}
	_, err = (&Client{BaseURL: srv.URL, Limits: Limits{BodyBytes: 1500}}).Complete(context.Background(), Request{Stream: true}, nil)
	if !errors.Is(err, ErrBodyTooLarge) {
		t.Fatalf("body bound: %v", err)
	}
	args := fmt.Sprintf(`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"arguments":"x","function":{"arguments":%q}}]}}]}`+"\n\n", big)
	srv = sse(t, `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"remember","arguments":""}}]}}]}`+"\n\n",
		args, args, `data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`+"\n\n")
	r, err = (&Client{BaseURL: srv.URL, Limits: Limits{ToolArgumentBytes: 1500}}).Complete(context.Background(), Request{Stream: true}, nil)
	if err != nil || len(r.Message.ToolCalls) != 1 || r.Message.ToolCalls[0].Function.Arguments != "{}" || !r.Oversized["c1"] {
		t.Fatalf("tool argument bound: %v %+v", err, r)
	}
}

func TestTheIdleTimeoutEndsAStalledStream(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, chunk("Hel"))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	_, err := (&Client{BaseURL: srv.URL, Limits: Limits{Idle: 50 * time.Millisecond}}).Complete(context.Background(), Request{Stream: true}, nil)
	if !errors.Is(err, ErrIdle) {
		t.Fatalf("err = %v", err)
	}
}

func TestUnknownToolCallFieldsGoBackAsTheyCame(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,
			"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"},"extra_content":{"google":{"thought_signature":"SIG"}}}]}}]}`)
	}))
	defer srv.Close()
	r, err := (&Client{BaseURL: srv.URL}).Complete(context.Background(), Request{}, nil)
	if err != nil || len(r.Message.ToolCalls) != 1 {
		t.Fatal(err, r)
	}
	data, _ := r.Message.MarshalJSON()
	if !strings.Contains(string(data), `"extra_content":{"google":{"thought_signature":"SIG"}}`) {
		t.Fatalf("sent back as %s", data)
	}
}

// BenchmarkStreamOf1MBIn16ByteChunks: putting a long streamed answer
// together is linear in its size (it was quadratic: 16.7 s of CPU for 1 MB).
func BenchmarkStreamOf1MBIn16ByteChunks(b *testing.B) {
	var body strings.Builder
	piece := strings.Repeat("a", 16)
	for range (1 << 20) / 16 {
		body.WriteString(chunk(piece))
	}
	body.WriteString(finished)
	data := body.String()
	b.SetBytes(1 << 20)
	for b.Loop() {
		r, err := readStream(strings.NewReader(data), Limits{AnswerBytes: 2 << 20}.withDefaults(), nil, func() {})
		if err != nil || len(r.Message.Content) != 1<<20 {
			b.Fatal(err)
		}
	}
}

// cut splits s into pieces of n bytes.
func cut(s string, n int) []string {
	var out []string
	for len(s) > n {
		out, s = append(out, s[:n]), s[n:]
	}
	return append(out, s)
}

// wireTestRequest has a message of every shape: text, parts with an image,
// tool calls with a field of Gemini's, a result, and DeepSeek's reasoning.
func wireTestRequest(history int) Request {
	req := Request{Model: "m", Stream: true, StreamOptions: &StreamOptions{IncludeUsage: true}, MaxTokens: 100,
		Messages: []Message{{Role: RoleSystem, Content: "be brief <\"quoted\"> & kind"}}}
	for i := range history {
		req.Messages = append(req.Messages, Message{Role: RoleUser, Content: fmt.Sprintf("[Текущее время: 2026-11-25 14:00] message %d: what should I cook?", i)},
			Message{Role: RoleAssistant, Content: fmt.Sprintf("answer %d", i)})
	}
	req.Messages = append(req.Messages,
		Message{Role: RoleUser, Parts: []Part{{Type: "text", Text: "look"}, {Type: "image_url", ImageURL: &ImageURL{URL: "data:image/png;base64,AAAA"}}}},
		Message{Role: RoleAssistant, ReasoningContent: "thinking", ToolCalls: []ToolCall{{ID: "c1", Function: FunctionCall{Name: "f", Arguments: `{"a":1}`},
			Extra: map[string]json.RawMessage{"extra_content": json.RawMessage(`{"google":{"thought_signature":"SIG"}}`)}}}},
		Message{Role: RoleTool, ToolCallID: "c1", Content: "result"})
	return req
}

// The request's body, encoded in one pass, says what encoding each message
// by its MarshalJSON says (the keys of the request come in another order).
func TestTheRequestBodyIsEachMessagesWireForm(t *testing.T) {
	t.Parallel()
	req := wireTestRequest(3)
	got, err := req.encode()
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	var gotValue, wantValue any
	if err := json.Unmarshal(got, &gotValue); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(want, &wantValue); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotValue, wantValue) {
		t.Fatalf("encoded as\n%s\nwant\n%s", got, want)
	}
	for _, part := range []string{`"messages":[{"role":"system","content":"be brief \u003c\"quoted\"\u003e \u0026 kind"}`,
		`"content":[{"type":"text","text":"look"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]`,
		`"tool_calls":[{"extra_content":{"google":{"thought_signature":"SIG"}},"function":{"name":"f","arguments":"{\"a\":1}"},"id":"c1","type":"function"}]`,
		`"reasoning_content":"thinking"`, `{"role":"tool","content":"result","tool_call_id":"c1"}`, `"stream":true`, `"max_tokens":100`} {
		if !strings.Contains(string(got), part) {
			t.Errorf("the body lacks %s:\n%s", part, got)
		}
	}
}

// BenchmarkEncodeRequest: the body of a turn's request with 30 rows of history.
func BenchmarkEncodeRequest(b *testing.B) {
	req := wireTestRequest(15)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := req.encode(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeRequestByMessage: the same through each Message's MarshalJSON, as before.
func BenchmarkEncodeRequestByMessage(b *testing.B) {
	req := wireTestRequest(15)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(req); err != nil {
			b.Fatal(err)
		}
	}
}
